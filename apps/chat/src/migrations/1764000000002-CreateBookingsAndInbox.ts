import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The back office: the inbox's order (last activity), a record of each hand-over (for the
 * analytics and the median time to the first team reply), and bookings. Every row carries
 * `account_id`.
 */
export class CreateBookingsAndInbox1764000000002 implements MigrationInterface {
  name = 'CreateBookingsAndInbox1764000000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX conversations_activity_idx ON chat.conversations (account_id, updated_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX messages_account_at_idx ON chat.messages (account_id, at)`);
    await queryRunner.query(`
      CREATE TABLE chat.handovers (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL,
        conversation_id bigint NOT NULL REFERENCES chat.conversations (id) ON DELETE CASCADE,
        reason text NOT NULL CHECK (reason IN ('customer_asked', 'assistant_unsure', 'nobody_answered')),
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX handovers_account_at_idx ON chat.handovers (account_id, at)`);
    await queryRunner.query(`
      CREATE TABLE chat.bookings (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL,
        conversation_id bigint NOT NULL REFERENCES chat.conversations (id) ON DELETE CASCADE,
        listing_ref text,
        starts_at timestamptz NOT NULL,
        note text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'confirmed', 'declined', 'cancelled')),
        created_by text NOT NULL CHECK (created_by IN ('customer', 'team', 'agent')),
        confirmed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX bookings_account_idx ON chat.bookings (account_id, id)`);
    await queryRunner.query(`CREATE INDEX bookings_account_created_idx ON chat.bookings (account_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat.bookings`);
    await queryRunner.query(`DROP TABLE chat.handovers`);
    await queryRunner.query(`DROP INDEX chat.messages_account_at_idx`);
    await queryRunner.query(`DROP INDEX chat.conversations_activity_idx`);
  }
}
