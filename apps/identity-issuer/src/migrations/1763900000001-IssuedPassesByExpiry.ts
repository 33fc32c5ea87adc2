import { MigrationInterface, QueryRunner } from 'typeorm';

/** The prune job removes the records of passes long expired, oldest first. */
export class IssuedPassesByExpiry1763900000001 implements MigrationInterface {
  name = 'IssuedPassesByExpiry1763900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX issued_passes_expires_at_idx ON identity.issued_passes (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX identity.issued_passes_expires_at_idx`);
  }
}
