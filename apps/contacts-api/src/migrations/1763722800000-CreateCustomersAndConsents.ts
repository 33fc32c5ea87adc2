import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCustomersAndConsents1763722800000 implements MigrationInterface {
  name = 'CreateCustomersAndConsents1763722800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // svc_id: our id of a customer, unique across accounts; `ref` is the business's id, unique per
    // account and null for a customer the chat met (NULLs are distinct, so any number of those).
    await queryRunner.query(`
      CREATE TABLE contacts.customers (
        svc_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL, ref text,
        name text NOT NULL DEFAULT '',
        email text, email_confirmed boolean NOT NULL DEFAULT false,
        phone text, phone_confirmed boolean NOT NULL DEFAULT false,
        lang text,
        created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT customers_account_ref_key UNIQUE (account_id, ref)
      )`);
    await queryRunner.query(`CREATE INDEX customers_account_email_idx ON contacts.customers (account_id, lower(email))`);
    await queryRunner.query(`CREATE INDEX customers_account_phone_idx ON contacts.customers (account_id, phone)`);
    // A consent is evidence: its identity (purpose, given_at as an instant, source) is unique per
    // customer and only its withdrawal fields ever change.
    await queryRunner.query(`
      CREATE TABLE contacts.consents (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL,
        customer_svc_id bigint NOT NULL REFERENCES contacts.customers (svc_id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('reply_email', 'reply_whatsapp', 'future_email', 'future_whatsapp')),
        granted boolean NOT NULL,
        text text NOT NULL,
        lang text,
        given_at timestamptz NOT NULL,
        source text NOT NULL,
        withdrawn_at timestamptz,
        withdrawn_by text,
        origin text NOT NULL CHECK (origin IN ('api', 'chat')),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT consents_identity_key UNIQUE (customer_svc_id, purpose, given_at, source)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE contacts.consents`);
    await queryRunner.query(`DROP TABLE contacts.customers`);
  }
}
