import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-conversation message limit counts the customer's messages of the last minute twice for
 * every message they send. Without this index it read every message of the conversation (a
 * WhatsApp conversation lives for months) or every message of the account in the last minute. Built
 * CONCURRENTLY, outside a transaction, so that messages keep being written meanwhile; an index left
 * invalid by an interrupted build is dropped and built again (the migration is recorded only once
 * it succeeded).
 */
export class IndexRecentCustomerMessages1764000000005 implements MigrationInterface {
  name = 'IndexRecentCustomerMessages1764000000005';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS chat.messages_customer_at_idx');
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY messages_customer_at_idx ON chat.messages (conversation_id, at) WHERE author = 'customer'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS chat.messages_customer_at_idx');
  }
}
