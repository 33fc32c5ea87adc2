import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAccountsAndKeys1763719200000 implements MigrationInterface {
  name = 'CreateAccountsAndKeys1763719200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE gateway.accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        plan text NOT NULL CHECK (plan IN ('starter', 'growth', 'scale')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE gateway.api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES gateway.accounts (id) ON DELETE CASCADE,
        prefix text NOT NULL,
        key_hash bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_account_id_idx ON gateway.api_keys (account_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE gateway.api_keys`);
    await queryRunner.query(`DROP TABLE gateway.accounts`);
  }
}
