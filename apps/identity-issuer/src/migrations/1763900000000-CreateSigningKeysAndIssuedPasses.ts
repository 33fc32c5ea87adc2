import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSigningKeysAndIssuedPasses1763900000000 implements MigrationInterface {
  name = 'CreateSigningKeysAndIssuedPasses1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Only keys generated when none are configured (development, tests); the private half sealed.
    await queryRunner.query(`
      CREATE TABLE identity.signing_keys (
        kid text PRIMARY KEY,
        public_jwk jsonb NOT NULL, private_sealed bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    // Audit of every pass issued: ids and times only, never the token.
    await queryRunner.query(`
      CREATE TABLE identity.issued_passes (
        jti uuid PRIMARY KEY,
        account_id uuid NOT NULL, svc_id bigint NOT NULL,
        kid text NOT NULL,
        issued_at timestamptz NOT NULL, expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX issued_passes_account_svc_id_idx ON identity.issued_passes (account_id, svc_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE identity.issued_passes`);
    await queryRunner.query(`DROP TABLE identity.signing_keys`);
  }
}
