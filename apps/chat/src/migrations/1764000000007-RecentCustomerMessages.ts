import { MigrationInterface, QueryRunner } from 'typeorm';

/** When the customer wrote within the last minute, on the conversation row: the message limit is checked in the statement that adds a message. */
export class RecentCustomerMessages1764000000007 implements MigrationInterface {
  name = 'RecentCustomerMessages1764000000007';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chat.conversations ADD COLUMN recent_customer_at timestamptz[] NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE chat.conversations DROP COLUMN recent_customer_at');
  }
}
