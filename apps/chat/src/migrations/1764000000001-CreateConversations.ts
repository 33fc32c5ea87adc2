import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schema `chat`: conversations (one per visitor token), their messages, and each account's widget
 * settings. Every row carries `account_id`. A conversation keeps a copy of the customer's name,
 * email and phone (to greet them and offer them back); erasure blanks it.
 */
export class CreateConversations1764000000001 implements MigrationInterface {
  name = 'CreateConversations1764000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat.widget_settings (
        account_id uuid PRIMARY KEY,
        allowed_origins text[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE chat.conversations (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL,
        channel text NOT NULL DEFAULT 'web',
        token_hash bytea NOT NULL UNIQUE,
        lang text NOT NULL DEFAULT 'en',
        customer_svc_id bigint,
        customer_identified boolean NOT NULL DEFAULT false,
        customer_name text NOT NULL DEFAULT '',
        customer_email text,
        customer_phone text,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'needs_human', 'handed_over')),
        handover text NOT NULL DEFAULT 'none' CHECK (handover IN ('none', 'waiting', 'ask_reach', 'created')),
        handover_reason text,
        handover_due_at timestamptz,
        reach jsonb,
        last_message_id integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX conversations_customer_idx ON chat.conversations (account_id, customer_svc_id) WHERE customer_svc_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX conversations_handover_due_idx ON chat.conversations (handover_due_at) WHERE handover = 'waiting'`,
    );
    // reply_pending: a customer message the assistant has still to answer; reply_lease_until: a
    // replica is answering it until then (another takes it over after a crash).
    await queryRunner.query(`
      CREATE TABLE chat.messages (
        conversation_id bigint NOT NULL REFERENCES chat.conversations (id) ON DELETE CASCADE,
        id integer NOT NULL,
        account_id uuid NOT NULL,
        author text NOT NULL CHECK (author IN ('customer', 'assistant', 'team', 'system')),
        text text NOT NULL,
        at timestamptz NOT NULL DEFAULT now(),
        citation jsonb,
        offers_person boolean NOT NULL DEFAULT false,
        reply_pending boolean NOT NULL DEFAULT false,
        reply_lease_until timestamptz,
        PRIMARY KEY (conversation_id, id)
      )`);
    await queryRunner.query(`CREATE INDEX messages_reply_pending_idx ON chat.messages (at) WHERE reply_pending`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat.messages`);
    await queryRunner.query(`DROP TABLE chat.conversations`);
    await queryRunner.query(`DROP TABLE chat.widget_settings`);
  }
}
