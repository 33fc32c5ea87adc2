import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chat's channels: each account's WhatsApp number, the WhatsApp message ids already taken in
 * (a repeated id is processed once), message statuses, the durable queue of what the chat sends
 * (WhatsApp messages, confirmation emails: retried with growing delay while the provider is down),
 * email confirmation links (stored hashed) and phone confirmation codes.
 */
export class CreateChannels1764000000004 implements MigrationInterface {
  name = 'CreateChannels1764000000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat.whatsapp_numbers (
        account_id uuid PRIMARY KEY,
        phone_number_id text NOT NULL UNIQUE,
        number text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `ALTER TABLE chat.conversations ADD COLUMN whatsapp_from text, ADD COLUMN last_customer_at timestamptz, ADD COLUMN business_name text NOT NULL DEFAULT ''`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX conversations_whatsapp_idx ON chat.conversations (account_id, whatsapp_from) WHERE whatsapp_from IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE chat.whatsapp_inbound (
        message_id text PRIMARY KEY, account_id uuid NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE chat.whatsapp_statuses (
        message_id text NOT NULL, status text NOT NULL,
        account_id uuid NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (message_id, status)
      )`);
    // One row per thing to send. sent_at set: done; failed_at set: parked (the provider refused it
    // for good, e.g. 4xx); otherwise due at next_attempt_at.
    await queryRunner.query(`
      CREATE TABLE chat.deliveries (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('whatsapp', 'email')),
        conversation_id bigint,
        payload jsonb NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        provider_id text,
        sent_at timestamptz,
        failed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX deliveries_due_idx ON chat.deliveries (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE chat.email_confirmations (
        token_hash bytea PRIMARY KEY,
        account_id uuid NOT NULL, customer_svc_id bigint NOT NULL,
        email text NOT NULL, conversation_id bigint NOT NULL,
        expires_at timestamptz NOT NULL, used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE chat.phone_codes (
        conversation_id bigint PRIMARY KEY,
        account_id uuid NOT NULL, customer_svc_id bigint NOT NULL,
        phone text NOT NULL, code text NOT NULL,
        expires_at timestamptz NOT NULL, used_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX phone_codes_lookup_idx ON chat.phone_codes (account_id, phone, code)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat.phone_codes`);
    await queryRunner.query(`DROP TABLE chat.email_confirmations`);
    await queryRunner.query(`DROP TABLE chat.deliveries`);
    await queryRunner.query(`DROP TABLE chat.whatsapp_statuses`);
    await queryRunner.query(`DROP TABLE chat.whatsapp_inbound`);
    await queryRunner.query(`DROP INDEX chat.conversations_whatsapp_idx`);
    await queryRunner.query(
      `ALTER TABLE chat.conversations DROP COLUMN whatsapp_from, DROP COLUMN last_customer_at, DROP COLUMN business_name`,
    );
    await queryRunner.query(`DROP TABLE chat.whatsapp_numbers`);
  }
}
