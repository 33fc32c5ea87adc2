import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One person (one email, one password) may be a member of several accounts: `console.people` holds
 * the email and the password; `console.members` becomes a membership (account, person, role,
 * accepted when its link was used). A session belongs to a person and acts in one membership once
 * chosen (`member_id` is null until then). A link that `resets` (the operator's) always sets the
 * password; an owner's invitation to a person who has one asks for it instead.
 */
export class People1764300000000 implements MigrationInterface {
  name = 'People1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console.people (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        password_hash text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX people_email ON console.people (lower(email))');
    await queryRunner.query(
      'INSERT INTO console.people (email, password_hash, created_at) SELECT email, password_hash, created_at FROM console.members',
    );
    await queryRunner.query('ALTER TABLE console.members ADD COLUMN person_id uuid, ADD COLUMN accepted_at timestamptz');
    await queryRunner.query(`
      UPDATE console.members m SET person_id = p.id, accepted_at = CASE WHEN m.password_hash IS NULL THEN NULL ELSE m.created_at END
        FROM console.people p WHERE lower(p.email) = lower(m.email)`);
    await queryRunner.query(`
      ALTER TABLE console.members ALTER COLUMN person_id SET NOT NULL,
        ADD CONSTRAINT members_person FOREIGN KEY (person_id) REFERENCES console.people (id) ON DELETE CASCADE`);
    await queryRunner.query('CREATE UNIQUE INDEX members_account_person ON console.members (account_id, person_id)');
    await queryRunner.query('CREATE INDEX members_person ON console.members (person_id)');
    await queryRunner.query('DROP INDEX console.members_email');
    await queryRunner.query('ALTER TABLE console.members DROP COLUMN email, DROP COLUMN password_hash');

    await queryRunner.query(
      'ALTER TABLE console.sessions ADD COLUMN person_id uuid REFERENCES console.people (id) ON DELETE CASCADE, ALTER COLUMN member_id DROP NOT NULL',
    );
    await queryRunner.query('UPDATE console.sessions s SET person_id = m.person_id FROM console.members m WHERE m.id = s.member_id');
    await queryRunner.query('ALTER TABLE console.sessions ALTER COLUMN person_id SET NOT NULL');
    await queryRunner.query('CREATE INDEX sessions_person ON console.sessions (person_id)');
    await queryRunner.query('CREATE INDEX sessions_member ON console.sessions (member_id)');
    // Links made before people were the operator's or first invitations: both set the password, as they did.
    await queryRunner.query('ALTER TABLE console.password_links ADD COLUMN resets boolean NOT NULL DEFAULT false');
    await queryRunner.query('UPDATE console.password_links SET resets = true');
    await queryRunner.query('CREATE INDEX password_links_member ON console.password_links (member_id)');
  }

  /** Back to one account per email: only possible while each person is a member of one account. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX console.password_links_member');
    await queryRunner.query('ALTER TABLE console.password_links DROP COLUMN resets');
    await queryRunner.query('DELETE FROM console.sessions WHERE member_id IS NULL');
    await queryRunner.query('DROP INDEX console.sessions_member');
    await queryRunner.query('DROP INDEX console.sessions_person');
    await queryRunner.query('ALTER TABLE console.sessions DROP COLUMN person_id, ALTER COLUMN member_id SET NOT NULL');
    await queryRunner.query('ALTER TABLE console.members ADD COLUMN email text, ADD COLUMN password_hash text');
    await queryRunner.query(`
      UPDATE console.members m SET email = p.email, password_hash = CASE WHEN m.accepted_at IS NULL THEN NULL ELSE p.password_hash END
        FROM console.people p WHERE p.id = m.person_id`);
    await queryRunner.query('ALTER TABLE console.members ALTER COLUMN email SET NOT NULL');
    await queryRunner.query('CREATE UNIQUE INDEX members_email ON console.members (lower(email))');
    await queryRunner.query('DROP INDEX console.members_person');
    await queryRunner.query('DROP INDEX console.members_account_person');
    await queryRunner.query('ALTER TABLE console.members DROP COLUMN person_id, DROP COLUMN accepted_at');
    await queryRunner.query('DROP TABLE console.people');
  }
}
