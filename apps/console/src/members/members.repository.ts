import { Inject, Injectable } from '@nestjs/common';
import type { Role } from '@svc/contracts';
import { execute, queryOne, queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';

export interface MemberRow {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  created_at: string;
}

export interface SessionRow {
  member_id: string;
  account_id: string;
  email: string;
  role: Role;
  csrf_token: string;
}

/** A throttle counter after reserving one attempt: the attempts counted and when the count restarts. */
export interface Reserved {
  n: number;
  retry_after_s: number;
}

/** Why a removal did not happen. */
export type RemoveRefusal = 'not_found' | 'last_owner';

const MEMBER = 'id, account_id, email, role, password_hash, created_at';

/** The SQL of schema `console`, and nothing else. */
@Injectable()
export class MembersRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async findByEmail(email: string): Promise<MemberRow | undefined> {
    return queryOne<MemberRow>(this.db, `SELECT ${MEMBER} FROM console.members WHERE lower(email) = lower($1)`, [email]);
  }

  /** The member with this email, created in `accountId` with `role` when there is none. */
  async findOrCreate(accountId: string, email: string, role: Role): Promise<MemberRow> {
    const [row] = await queryRows<MemberRow>(
      this.db,
      `INSERT INTO console.members (account_id, email, role) VALUES ($1, $2, $3)
       ON CONFLICT ((lower(email))) DO UPDATE SET email = console.members.email
       RETURNING ${MEMBER}`,
      [accountId, email, role],
    );
    return row;
  }

  /** A pending invitation's new role (only while the member has no password). */
  async setPendingRole(memberId: string, role: Role): Promise<void> {
    await execute(this.db, 'UPDATE console.members SET role = $2 WHERE id = $1 AND password_hash IS NULL', [memberId, role]);
  }

  listMembers(accountId: string): Promise<MemberRow[]> {
    return queryRows<MemberRow>(this.db, `SELECT ${MEMBER} FROM console.members WHERE account_id = $1 ORDER BY created_at, id`, [
      accountId,
    ]);
  }

  /** Removes a member with their sessions and links, never the last owner (owners' rows are locked first). */
  async removeMember(accountId: string, by: { id: string } | { email: string }): Promise<MemberRow | RemoveRefusal> {
    return this.db.transaction(async (tx) => {
      const owners = await queryRows(tx, `SELECT id FROM console.members WHERE account_id = $1 AND role = 'owner' ORDER BY id FOR UPDATE`, [
        accountId,
      ]);
      const member =
        'id' in by
          ? await queryOne<MemberRow>(tx, `SELECT ${MEMBER} FROM console.members WHERE account_id = $1 AND id = $2::uuid`, [
              accountId,
              by.id,
            ])
          : await queryOne<MemberRow>(tx, `SELECT ${MEMBER} FROM console.members WHERE account_id = $1 AND lower(email) = lower($2)`, [
              accountId,
              by.email,
            ]);
      if (!member) return 'not_found';
      if (member.role === 'owner' && owners.length <= 1) return 'last_owner';
      await execute(tx, 'DELETE FROM console.members WHERE id = $1', [member.id]);
      return member;
    });
  }

  async insertPasswordLink(memberId: string, tokenHash: Buffer, ttlHours: number): Promise<void> {
    await execute(
      this.db,
      `INSERT INTO console.password_links (token_hash, member_id, expires_at) VALUES ($1, $2, now() + make_interval(hours => $3))`,
      [tokenHash, memberId, ttlHours],
    );
  }

  /** Whether a set-password link is usable now (unknown, used and expired links are not). */
  async linkIsUsable(tokenHash: Buffer): Promise<boolean> {
    const row = await queryOne<{ ok: number }>(
      this.db,
      'SELECT 1 AS ok FROM console.password_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()',
      [tokenHash],
    );
    return row !== undefined;
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
      // A new password ends the member's other sessions and every other link made for them.
      await execute(tx, 'DELETE FROM console.sessions WHERE member_id = $1', [used.member_id]);
      await execute(tx, 'DELETE FROM console.password_links WHERE member_id = $1 AND token_hash <> $2', [used.member_id, tokenHash]);
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

  /** A live session with its member as they are now (a removed member has none; a role change shows at once). */
  async findSession(tokenHash: Buffer): Promise<SessionRow | undefined> {
    return queryOne<SessionRow>(
      this.db,
      `SELECT s.member_id, m.account_id, m.email, m.role, s.csrf_token
         FROM console.sessions s JOIN console.members m ON m.id = s.member_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [tokenHash],
    );
  }

  async deleteSession(tokenHash: Buffer): Promise<void> {
    await execute(this.db, 'DELETE FROM console.sessions WHERE token_hash = $1', [tokenHash]);
  }

  /** Counts one attempt for `key` in a `windowS` window with one upsert. See docs/adr/010-console-sign-in-limits.md */
  async reserveAttempt(key: string, windowS: number): Promise<Reserved> {
    const [row] = await queryRows<Reserved>(
      this.db,
      `INSERT INTO console.sign_in_counts AS c (key, n, resets_at) VALUES ($1, 1, now() + make_interval(secs => $2))
       ON CONFLICT (key) DO UPDATE SET
         n = CASE WHEN c.resets_at <= now() THEN 1 ELSE c.n + 1 END,
         resets_at = CASE WHEN c.resets_at <= now() THEN now() + make_interval(secs => $2) ELSE c.resets_at END
       RETURNING n, GREATEST(1, ceil(EXTRACT(EPOCH FROM resets_at - now())))::int AS retry_after_s`,
      [key, windowS],
    );
    return row;
  }

  /** After a successful sign-in: `clear` counters end, `release` counters give back the attempt reserved. */
  async settleAttempt(clear: string[], release: string[]): Promise<void> {
    await execute(this.db, 'DELETE FROM console.sign_in_counts WHERE key = ANY($1::text[])', [clear]);
    await execute(this.db, 'UPDATE console.sign_in_counts SET n = GREATEST(n - 1, 0) WHERE key = ANY($1::text[])', [release]);
  }

  /** Whether the member signed in from this (email, address) recently. */
  async isKnown(key: string): Promise<boolean> {
    return (
      (await queryOne<{ ok: number }>(this.db, 'SELECT 1 AS ok FROM console.sign_in_counts WHERE key = $1 AND resets_at > now()', [
        key,
      ])) !== undefined
    );
  }

  /** Remembers an (email, address) a member signed in from, for `days`. */
  async markKnown(key: string, days: number): Promise<void> {
    await execute(
      this.db,
      `INSERT INTO console.sign_in_counts (key, n, resets_at) VALUES ($1, 0, now() + make_interval(days => $2))
       ON CONFLICT (key) DO UPDATE SET resets_at = EXCLUDED.resets_at`,
      [key, days],
    );
  }

  /** Forgets counters whose window ended long ago. */
  async pruneCounters(): Promise<void> {
    await execute(this.db, "DELETE FROM console.sign_in_counts WHERE resets_at < now() - interval '1 day'");
  }
}
