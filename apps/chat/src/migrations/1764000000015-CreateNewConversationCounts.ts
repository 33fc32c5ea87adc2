import { MigrationInterface, QueryRunner } from 'typeorm';

/** New conversations per visitor address (a hash of it) and window: counted here, so across replicas. */
export class CreateNewConversationCounts1764000000015 implements MigrationInterface {
  name = 'CreateNewConversationCounts1764000000015';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat.new_conversation_counts (
        client_hash bytea PRIMARY KEY,
        window_start timestamptz NOT NULL,
        used integer NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX new_conversation_counts_window ON chat.new_conversation_counts (window_start)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE chat.new_conversation_counts');
  }
}
