import { MigrationInterface, QueryRunner } from 'typeorm';

/** The customer's message times of the last minute, on the conversation row: the limit is checked where a message is added. */
export class RecentCustomerMessages1764000000007 implements MigrationInterface {
  name = 'RecentCustomerMessages1764000000007';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chat.conversations ADD COLUMN recent_customer_at timestamptz[] NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE chat.conversations DROP COLUMN recent_customer_at');
  }
}
