import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schema `console`: team members (one account each; an email signs in to one account), their
 * sessions and set-password links (both stored only as SHA-256 hashes), and failed sign-ins (the throttle).
 */
export class CreateMembers1764100000000 implements MigrationInterface {
  name = 'CreateMembers1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console.members (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL,
        email text NOT NULL,
        password_hash text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX members_email ON console.members (lower(email))');
    await queryRunner.query('CREATE INDEX members_account ON console.members (account_id, created_at)');
    await queryRunner.query(`
      CREATE TABLE console.password_links (
        token_hash bytea PRIMARY KEY,
        member_id uuid NOT NULL REFERENCES console.members (id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE console.sessions (
        token_hash bytea PRIMARY KEY,
        member_id uuid NOT NULL REFERENCES console.members (id) ON DELETE CASCADE,
        csrf_token text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE console.sign_in_failures (
        id bigserial PRIMARY KEY,
        email text NOT NULL, address text NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX sign_in_failures_email ON console.sign_in_failures (lower(email), at)');
    await queryRunner.query('CREATE INDEX sign_in_failures_address ON console.sign_in_failures (address, at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE console.sign_in_failures, console.sessions, console.password_links, console.members');
  }
}
