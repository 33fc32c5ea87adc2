import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each delivery keeps the trace of the event that made it: its attempts are spans of that trace (docs/operations.md, "Traces"). */
export class DeliveryTraceparent1763900000004 implements MigrationInterface {
  name = 'DeliveryTraceparent1763900000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks.deliveries ADD COLUMN traceparent text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN traceparent`);
  }
}
