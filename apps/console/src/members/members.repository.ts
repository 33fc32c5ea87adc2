import { execute, queryOne, queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';

export interface MemberRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string | null;
  created_at: string;
}

export interface SessionRow {
  member_id: string;
  account_id: string;
  email: string;
  csrf_token: string;
}

const MEMBER = 'id, account_id, email, password_hash, created_at';

/** The SQL of schema `console`, and nothing else. */
export class MembersRepository {
  constructor(private readonly db: DataSource) {}

  async findByEmail(email: string): Promise<MemberRow | undefined> {
    return queryOne<MemberRow>(this.db, `SELECT ${MEMBER} FROM console.members WHERE lower(email) = lower($1)`, [email]);
  }

  /** The member with this email, created in `accountId` when there is none. */
  async findOrCreate(accountId: string, email: string): Promise<MemberRow> {
    const [row] = await queryRows<MemberRow>(
      this.db,
      `INSERT INTO console.members (account_id, email) VALUES ($1, $2)
       ON CONFLICT ((lower(email))) DO UPDATE SET email = console.members.email
       RETURNING ${MEMBER}`,
      [accountId, email],
    );
    return row;
  }

  listMembers(accountId: string): Promise<MemberRow[]> {
    return queryRows<MemberRow>(this.db, `SELECT ${MEMBER} FROM console.members WHERE account_id = $1 ORDER BY created_at, id`, [
      accountId,
    ]);
  }

  async insertPasswordLink(memberId: string, tokenHash: Buffer, ttlHours: number): Promise<void> {
    await execute(
      this.db,
      `INSERT INTO console.password_links (token_hash, member_id, expires_at) VALUES ($1, $2, now() + make_interval(hours => $3))`,
      [tokenHash, memberId, ttlHours],
    );
  }

  /** Uses a set-password link once: the member it was for, or undefined (unknown, used or expired). */
  async useLink(tokenHash: Buffer, passwordHash: string): Promise<MemberRow | undefined> {
    return this.db.transaction(async (tx) => {
      const used = await queryOne<{ member_id: string }>(
        tx,
        `UPDATE console.password_links SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING member_id`,
        [tokenHash],
      );
      if (!used) return undefined;
      const member = await queryOne<MemberRow>(tx, `UPDATE console.members SET password_hash = $2 WHERE id = $1 RETURNING ${MEMBER}`, [
        used.member_id,
        passwordHash,
      ]);
      // A new password ends the member's other sessions.
      await execute(tx, 'DELETE FROM console.sessions WHERE member_id = $1', [used.member_id]);
      return member;
    });
  }

  async insertSession(memberId: string, tokenHash: Buffer, csrfToken: string, ttlHours: number): Promise<void> {
    await execute(
      this.db,
      `INSERT INTO console.sessions (token_hash, member_id, csrf_token, expires_at) VALUES ($1, $2, $3, now() + make_interval(hours => $4))`,
      [tokenHash, memberId, csrfToken, ttlHours],
    );
  }

  async findSession(tokenHash: Buffer): Promise<SessionRow | undefined> {
    return queryOne<SessionRow>(
      this.db,
      `SELECT s.member_id, m.account_id, m.email, s.csrf_token
         FROM console.sessions s JOIN console.members m ON m.id = s.member_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [tokenHash],
    );
  }

  async deleteSession(tokenHash: Buffer): Promise<void> {
    await execute(this.db, 'DELETE FROM console.sessions WHERE token_hash = $1', [tokenHash]);
  }

  /** Failed sign-ins in the window: for this email, and from this client address. */
  async countFailures(email: string, address: string, windowS: number): Promise<{ email: number; address: number; oldest_s: number }> {
    const [row] = await queryRows<{ email: number; address: number; oldest_s: number }>(
      this.db,
      `SELECT count(*) FILTER (WHERE lower(email) = lower($1))::int AS email,
              count(*) FILTER (WHERE address = $2)::int AS address,
              COALESCE(EXTRACT(EPOCH FROM now() - min(at))::int, 0) AS oldest_s
         FROM console.sign_in_failures
        WHERE (lower(email) = lower($1) OR address = $2) AND at > now() - make_interval(secs => $3)`,
      [email, address, windowS],
    );
    return row;
  }

  async recordFailure(email: string, address: string): Promise<void> {
    await execute(this.db, 'INSERT INTO console.sign_in_failures (email, address) VALUES ($1, $2)', [email, address]);
    await execute(this.db, "DELETE FROM console.sign_in_failures WHERE at < now() - interval '1 day'");
  }

  async clearFailures(email: string): Promise<void> {
    await execute(this.db, 'DELETE FROM console.sign_in_failures WHERE lower(email) = lower($1)', [email]);
  }
}
