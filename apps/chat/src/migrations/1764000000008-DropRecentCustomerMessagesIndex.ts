import { MigrationInterface, QueryRunner } from 'typeorm';

/** The message limit counts on the conversation row now (RecentCustomerMessages1764000000007): its index only slowed every insert. */
export class DropRecentCustomerMessagesIndex1764000000008 implements MigrationInterface {
  name = 'DropRecentCustomerMessagesIndex1764000000008';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS chat.messages_customer_at_idx');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY messages_customer_at_idx ON chat.messages (conversation_id, at) WHERE author = 'customer'`,
    );
  }
}
