import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooks1763900000000 implements MigrationInterface {
  name = 'CreateWebhooks1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A deleted endpoint keeps its row (deleted_at) so that its deliveries and attempts stay on record.
    await queryRunner.query(`
      CREATE TABLE webhooks.endpoints (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL,
        url text NOT NULL,
        events text[],
        secret_sealed bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX endpoints_active_idx ON webhooks.endpoints (account_id, id) WHERE deleted_at IS NULL`);

    // One row per (endpoint, event): the body bytes are fixed when the event arrives.
    await queryRunner.query(`
      CREATE TABLE webhooks.deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL,
        endpoint_id bigint NOT NULL REFERENCES webhooks.endpoints (id),
        event_id bigint NOT NULL,
        event_kind text NOT NULL,
        body bytea NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        claim_token uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        UNIQUE (endpoint_id, event_id)
      )`);
    await queryRunner.query(`CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at, id) WHERE status = 'pending'`);
    await queryRunner.query(
      `CREATE INDEX deliveries_leased_idx ON webhooks.deliveries (endpoint_id) WHERE status = 'pending' AND locked_until IS NOT NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE webhooks.attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id bigint NOT NULL REFERENCES webhooks.deliveries (id),
        account_id uuid NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer,
        error text,
        response_body text
      )`);
    await queryRunner.query(`CREATE INDEX attempts_delivery_idx ON webhooks.attempts (delivery_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhooks.attempts`);
    await queryRunner.query(`DROP TABLE webhooks.deliveries`);
    await queryRunner.query(`DROP TABLE webhooks.endpoints`);
  }
}
