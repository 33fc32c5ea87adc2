import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chat's model of contacts-api's customers, fed by `contact.changed` (ADR 013): what a message's
 * event says of its customer, without asking contacts-api on every message. `contact` is null once
 * the customer was erased (a late `contact.changed` never brings them back); `updated_at` is the
 * customer's own, so that an older version never replaces a newer one.
 */
export class CreateCustomers1764000000009 implements MigrationInterface {
  name = 'CreateCustomers1764000000009';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat.customers (
        account_id uuid NOT NULL,
        svc_id bigint NOT NULL,
        contact jsonb,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, svc_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE chat.customers');
  }
}
