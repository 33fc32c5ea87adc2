import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoint management: an endpoint is `enabled` or `disabled` (with the reason: `failing` when the
 * dispatcher turned it off, `manual` by PATCH) since `status_changed_at`; after a secret rotation
 * the previous secret (sealed like the current one) keeps signing until `previous_expires_at`.
 * A delivery resent by hand gets one attempt (`single_attempt`). Deliveries are listed per endpoint by id.
 */
export class EndpointManagement1763900000003 implements MigrationInterface {
  name = 'EndpointManagement1763900000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhooks.endpoints
        ADD COLUMN status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
        ADD COLUMN disabled_reason text,
        ADD COLUMN status_changed_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN previous_secret_sealed bytea,
        ADD COLUMN previous_expires_at timestamptz`);
    await queryRunner.query(`ALTER TABLE webhooks.deliveries ADD COLUMN single_attempt boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`CREATE INDEX deliveries_endpoint_idx ON webhooks.deliveries (endpoint_id, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhooks.deliveries_endpoint_idx`);
    await queryRunner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN single_attempt`);
    await queryRunner.query(`
      ALTER TABLE webhooks.endpoints
        DROP COLUMN status, DROP COLUMN disabled_reason, DROP COLUMN status_changed_at,
        DROP COLUMN previous_secret_sealed, DROP COLUMN previous_expires_at`);
  }
}
