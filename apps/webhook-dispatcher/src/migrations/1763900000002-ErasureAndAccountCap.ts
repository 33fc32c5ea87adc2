import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Erasure: the customers erased per account (svc_id only, no personal data), and the customer each
 * delivery is about, so that an erasure finds their deliveries and a delivery made later is blanked.
 * Per-account cap: the leases of an account are counted from an index of leased deliveries by account.
 */
export class ErasureAndAccountCap1763900000002 implements MigrationInterface {
  name = 'ErasureAndAccountCap1763900000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks.erased_contacts (
        account_id uuid NOT NULL, svc_id bigint NOT NULL,
        erased_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, svc_id)
      )`);
    await queryRunner.query(`ALTER TABLE webhooks.deliveries ADD COLUMN contact_svc_id bigint`);
    await queryRunner.query(`
      UPDATE webhooks.deliveries d SET contact_svc_id = (b.event -> 'data' -> 'contact' ->> 'svc_id')::bigint
      FROM (SELECT id, convert_from(body, 'UTF8')::jsonb AS event FROM webhooks.deliveries) b
      WHERE b.id = d.id AND jsonb_typeof(b.event -> 'data' -> 'contact' -> 'svc_id') = 'number'`);
    await queryRunner.query(
      `CREATE INDEX deliveries_contact_idx ON webhooks.deliveries (account_id, contact_svc_id) WHERE contact_svc_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX deliveries_account_leased_idx ON webhooks.deliveries (account_id) WHERE status = 'pending' AND locked_until IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhooks.deliveries_account_leased_idx`);
    await queryRunner.query(`DROP INDEX webhooks.deliveries_contact_idx`);
    await queryRunner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN contact_svc_id`);
    await queryRunner.query(`DROP TABLE webhooks.erased_contacts`);
  }
}
