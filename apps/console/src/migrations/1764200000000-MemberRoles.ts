import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Roles (`owner`: keys, webhooks, plan, members; `agent`: conversations, customers, bookings; the
 * members before roles become owners) and the sign-in throttle's counters: one row per key
 * (email and address, address, email), each reserved atomically before a password is checked.
 */
export class MemberRoles1764200000000 implements MigrationInterface {
  name = 'MemberRoles1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE console.members ADD COLUMN role text NOT NULL DEFAULT 'owner' CONSTRAINT members_role CHECK (role IN ('owner', 'agent'))`,
    );
    await queryRunner.query('ALTER TABLE console.members ALTER COLUMN role DROP DEFAULT');
    await queryRunner.query('CREATE INDEX members_account_role ON console.members (account_id, role)');
    await queryRunner.query(`
      CREATE TABLE console.sign_in_counts (
        key text PRIMARY KEY,
        n integer NOT NULL,
        resets_at timestamptz NOT NULL
      )`);
    await queryRunner.query('DROP TABLE console.sign_in_failures');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console.sign_in_failures (
        id bigserial PRIMARY KEY,
        email text NOT NULL, address text NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX sign_in_failures_email ON console.sign_in_failures (lower(email), at)');
    await queryRunner.query('CREATE INDEX sign_in_failures_address ON console.sign_in_failures (address, at)');
    await queryRunner.query('DROP TABLE console.sign_in_counts');
    await queryRunner.query('DROP INDEX console.members_account_role');
    await queryRunner.query('ALTER TABLE console.members DROP COLUMN role');
  }
}
