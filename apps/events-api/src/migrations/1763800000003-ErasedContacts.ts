import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The customers erased per account (their svc_id only, no personal data), so that an event of one
 * that arrives after the erasure (out of order, redelivered, replayed) is blanked as it is appended.
 */
export class ErasedContacts1763800000003 implements MigrationInterface {
  name = 'ErasedContacts1763800000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE events.erased_contacts (
        account_id uuid NOT NULL,
        svc_id bigint NOT NULL,
        erased_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, svc_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE events.erased_contacts`);
  }
}
