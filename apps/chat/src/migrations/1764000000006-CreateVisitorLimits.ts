import { MigrationInterface, QueryRunner } from 'typeorm';

/** What each conversation's visitor used of its per-hour limits (consents, bookings, hand-overs, phone codes). */
export class CreateVisitorLimits1764000000006 implements MigrationInterface {
  name = 'CreateVisitorLimits1764000000006';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat.visitor_limits (
        conversation_id bigint NOT NULL REFERENCES chat.conversations (id) ON DELETE CASCADE,
        action text NOT NULL,
        window_start timestamptz NOT NULL,
        used integer NOT NULL,
        PRIMARY KEY (conversation_id, action)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE chat.visitor_limits');
  }
}
