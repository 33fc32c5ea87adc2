import { MigrationInterface, QueryRunner } from 'typeorm';

/** Claims walk the endpoints with pending deliveries and take each one's oldest due rows. */
export class DeliveriesByEndpoint1763900000001 implements MigrationInterface {
  name = 'DeliveriesByEndpoint1763900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX deliveries_endpoint_due_idx ON webhooks.deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhooks.deliveries_endpoint_due_idx`);
  }
}
