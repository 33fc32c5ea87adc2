import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visitor tokens change hands never (docs/chat.md "Visitor tokens"): a conversation keeps when its
 * token was issued (tokens have a maximum lifetime) and the hash of the token it had before the
 * last rotation (with a pass for that same customer, it reopens the conversation with a new token);
 * a confirmation link or phone code keeps the hash of the token the conversation gets when it is
 * confirmed (handed to the widget that asked for it, and to nobody else). The index is built
 * CONCURRENTLY, outside a transaction, so that conversations keep being written meanwhile.
 */
export class RotateVisitorTokens1764000000010 implements MigrationInterface {
  name = 'RotateVisitorTokens1764000000010';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE chat.conversations
         ADD COLUMN IF NOT EXISTS token_issued_at timestamptz NOT NULL DEFAULT now(),
         ADD COLUMN IF NOT EXISTS previous_token_hash bytea`,
    );
    await queryRunner.query('ALTER TABLE chat.email_confirmations ADD COLUMN IF NOT EXISTS next_token_hash bytea');
    await queryRunner.query('ALTER TABLE chat.phone_codes ADD COLUMN IF NOT EXISTS next_token_hash bytea');
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS chat.conversations_previous_token_idx');
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY conversations_previous_token_idx ON chat.conversations (previous_token_hash) WHERE previous_token_hash IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS chat.conversations_previous_token_idx');
    await queryRunner.query('ALTER TABLE chat.phone_codes DROP COLUMN next_token_hash');
    await queryRunner.query('ALTER TABLE chat.email_confirmations DROP COLUMN next_token_hash');
    await queryRunner.query('ALTER TABLE chat.conversations DROP COLUMN previous_token_hash, DROP COLUMN token_issued_at');
  }
}
