import { Inject, Injectable } from '@nestjs/common';
import type { Role } from '@svc/contracts';
import { Columns, Queryable } from '@svc/persistence';
import { DataSource, EntityManager } from 'typeorm';
import type { Members, PasswordLinks, People, Sessions, SignInCounts } from '../schema.generated';
import { execute, queryOne, queryRows, sql } from '../statements';

/** A person: one email, one password, member of one or more accounts. */
export type PersonRow = Columns<People, 'id' | 'email' | 'password_hash'>;

/**
 * A membership of an account (MEMBER), with its person's email and password; `accepted_at` is when the
 * member first used a link of this membership (null: an open invitation). The role is held to the contract's values.
 */
export type MemberRow = Columns<Members, 'id' | 'account_id' | 'person_id' | 'role' | 'accepted_at' | 'created_at'> &
  Columns<People, 'email' | 'password_hash'> & { role: Role };

/** A membership a person can sign in to. */
export type Membership = Columns<Members, 'account_id' | 'role'> & { member_id: Columns<Members, 'id'>['id']; role: Role };

/** A live session as it is now: the person and, once chosen, the membership it acts in (a removal shows at once). */
export type SessionRow = Columns<Sessions, 'token_hash' | 'person_id' | 'csrf_token' | 'member_id'> &
  Columns<People, 'email'> & { account_id: Members['account_id'] | null; role: Role | null };

/** A session acting in an account: what every account route needs. */
export interface MemberSession extends SessionRow {
  member_id: string;
  account_id: string;
  role: Role;
}

/** A usable set-password link, with its membership's person. */
export type LinkRow = Columns<PasswordLinks, 'member_id' | 'resets'> &
  Columns<Members, 'person_id'> &
  Columns<People, 'email' | 'password_hash'>;

/** A throttle counter after reserving one attempt: the attempts counted and when the count restarts. */
export type Reserved = Columns<SignInCounts, 'n'> & { retry_after_s: number };

/** After a sign-in succeeded: counters to clear, attempts to give back, an (email, address) to remember. */
export interface Settlement {
  clear: string[];
  release: string[];
  known: { key: string; days: number };
}

/** A new session: its token's hash and CSRF token, how long it lasts. */
export interface NewSessionRow {
  tokenHash: Buffer;
  csrfToken: string;
  ttlHours: number;
}

/** Why a removal did not happen. */
export type RemoveRefusal = 'not_found' | 'last_owner';

/** The channel that tells every console replica a session ended or changed account (their live responses re-check). */
export const SESSIONS_CHANNEL = 'console_sessions';

const MEMBER = `m.id, m.account_id, m.person_id, p.email, m.role, p.password_hash, m.accepted_at, m.created_at`;
const MEMBERS = 'console.members m JOIN console.people p ON p.id = m.person_id';
const notifySessions = (tx: Queryable) => execute(tx, sql('console_members_notify_sessions')`SELECT pg_notify('${SESSIONS_CHANNEL}', '')`);

/** The SQL of schema `console`, and nothing else. */
@Injectable()
export class MembersRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async findPerson(email: string): Promise<PersonRow | undefined> {
    return queryOne<PersonRow>(
      this.db,
      sql('console_members_find_person')`SELECT id, email, password_hash FROM console.people WHERE lower(email) = lower($1)`,
      [email],
    );
  }

  /** The accounts a person has accepted a membership of, oldest first. */
  memberships(personId: string): Promise<Membership[]> {
    return queryRows<Membership>(
      this.db,
      sql('console_members_memberships')`SELECT id AS member_id, account_id, role FROM console.members
        WHERE person_id = $1 AND accepted_at IS NOT NULL ORDER BY created_at, id`,
      [personId],
    );
  }

  /** The account's membership of the person with this email: the person and the membership made (with `role`) when missing. */
  async findOrAddMember(accountId: string, email: string, role: Role): Promise<MemberRow> {
    return this.db.transaction(async (tx) => {
      const [person] = await queryRows<Columns<People, 'id'>>(
        tx,
        sql('console_members_find_or_add_member')`INSERT INTO console.people (email) VALUES ($1)
         ON CONFLICT ((lower(email))) DO UPDATE SET email = console.people.email RETURNING id`,
        [email],
      );
      const [member] = await queryRows<Columns<Members, 'id'>>(
        tx,
        sql('console_members_find_or_add_member_2')`INSERT INTO console.members (account_id, person_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (account_id, person_id) DO UPDATE SET role = console.members.role RETURNING id`,
        [accountId, person.id, role],
      );
      return (await queryOne<MemberRow>(tx, sql('console_members_find_or_add_member_3')`SELECT ${MEMBER} FROM ${MEMBERS} WHERE m.id = $1`, [
        member.id,
      ])) as MemberRow;
    });
  }

  /** A pending invitation's new role (only until it is accepted). */
  async setPendingRole(memberId: string, role: Role): Promise<void> {
    await execute(
      this.db,
      sql('console_members_set_pending_role')`UPDATE console.members SET role = $2 WHERE id = $1 AND accepted_at IS NULL`,
      [memberId, role],
    );
  }

  listMembers(accountId: string): Promise<MemberRow[]> {
    return queryRows<MemberRow>(
      this.db,
      sql('console_members_list_members')`SELECT ${MEMBER} FROM ${MEMBERS} WHERE m.account_id = $1 ORDER BY m.created_at, m.id`,
      [accountId],
    );
  }

  /**
   * Removes a membership with its sessions and links, never the account's last active owner (the
   * owners' rows are locked first); a person left with no membership goes too. Every replica hears
   * of it (their live responses of the removed member end).
   */
  async removeMember(accountId: string, by: { id: string } | { email: string }): Promise<MemberRow | RemoveRefusal> {
    return this.db.transaction(async (tx) => {
      const owners = await queryRows(
        tx,
        sql('console_members_remove_member')`
          SELECT id FROM console.members WHERE account_id = $1 AND role = 'owner' AND accepted_at IS NOT NULL ORDER BY id FOR UPDATE`,
        [accountId],
      );
      const member =
        'id' in by
          ? await queryOne<MemberRow>(
              tx,
              sql('console_members_remove_member_2')`SELECT ${MEMBER} FROM ${MEMBERS} WHERE m.account_id = $1 AND m.id = $2::uuid`,
              [accountId, by.id],
            )
          : await queryOne<MemberRow>(
              tx,
              sql('console_members_remove_member_3')`
                SELECT ${MEMBER} FROM ${MEMBERS} WHERE m.account_id = $1 AND lower(p.email) = lower($2)`,
              [accountId, by.email],
            );
      if (!member) return 'not_found';
      if (member.role === 'owner' && member.accepted_at !== null && owners.length <= 1) return 'last_owner';
      await execute(tx, sql('console_members_remove_member_4')`DELETE FROM console.members WHERE id = $1`, [member.id]);
      await execute(
        tx,
        sql('console_members_remove_member_5')`
          DELETE FROM console.people p WHERE p.id = $1 AND NOT EXISTS (SELECT 1 FROM console.members m WHERE m.person_id = p.id)`,
        [member.person_id],
      );
      await notifySessions(tx);
      return member;
    });
  }

  async insertPasswordLink(memberId: string, tokenHash: Buffer, ttlHours: number, resets: boolean): Promise<void> {
    await execute(
      this.db,
      sql('console_members_insert_password_link')`INSERT INTO console.password_links (token_hash, member_id, expires_at, resets)
       VALUES ($1, $2, now() + make_interval(hours => $3), $4)`,
      [tokenHash, memberId, ttlHours, resets],
    );
  }

  /** A set-password link usable now, with its person (unknown, used and expired links: undefined). */
  async findLink(tokenHash: Buffer): Promise<LinkRow | undefined> {
    return queryOne<LinkRow>(
      this.db,
      sql('console_members_find_link')`SELECT l.member_id, m.person_id, p.email, p.password_hash, l.resets
         FROM console.password_links l JOIN ${MEMBERS} ON m.id = l.member_id
        WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > now()`,
      [tokenHash],
    );
  }

  /**
   * Uses a link once, in one transaction: the membership accepted and, with `passwordHash`, the
   * person's new password (only if it is still `seenHash`: their other sessions end, with this
   * membership's other links and the person's other reset links), and the new session in that
   * membership. Undefined when the link is no longer usable (or the password changed meanwhile).
   */
  async useLink(tokenHash: Buffer, password: { hash: string; seen: string | null } | undefined, session: NewSessionRow) {
    return this.db
      .transaction(async (tx): Promise<MemberRow | undefined> => {
        const used = await queryOne<Columns<PasswordLinks, 'member_id'>>(
          tx,
          sql('console_members_use_link')`UPDATE console.password_links SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING member_id`,
          [tokenHash],
        );
        if (!used) return undefined;
        const member = await queryOne<Columns<Members, 'person_id'>>(
          tx,
          sql('console_members_use_link_2')`
            UPDATE console.members SET accepted_at = COALESCE(accepted_at, now()) WHERE id = $1 RETURNING person_id`,
          [used.member_id],
        );
        if (!member) return undefined;
        if (password) {
          const changed = await queryOne<Columns<People, 'id'>>(
            tx,
            sql('console_members_use_link_3')`
              UPDATE console.people SET password_hash = $2 WHERE id = $1 AND password_hash IS NOT DISTINCT FROM $3 RETURNING id`,
            [member.person_id, password.hash, password.seen],
          );
          if (!changed) throw new PasswordChanged();
          await execute(tx, sql('console_members_use_link_4')`DELETE FROM console.sessions WHERE person_id = $1`, [member.person_id]);
          await execute(
            tx,
            sql('console_members_use_link_5')`DELETE FROM console.password_links l USING console.members m
            WHERE m.id = l.member_id AND m.person_id = $1 AND l.token_hash <> $2 AND (l.member_id = $3 OR l.resets)`,
            [member.person_id, tokenHash, used.member_id],
          );
          await notifySessions(tx);
        }
        await this.insertSession(tx, member.person_id, used.member_id, session);
        return queryOne<MemberRow>(tx, sql('console_members_use_link_6')`SELECT ${MEMBER} FROM ${MEMBERS} WHERE m.id = $1`, [
          used.member_id,
        ]);
      })
      .catch((err: unknown) => {
        if (err instanceof PasswordChanged) return undefined;
        throw err;
      });
  }

  /** A new session after a sign-in, with the sign-in's counters settled, in one transaction (all or nothing). */
  async openSession(personId: string, memberId: string | null, session: NewSessionRow, settlement: Settlement): Promise<void> {
    await this.db.transaction(async (tx) => {
      await execute(tx, sql('console_members_open_session')`DELETE FROM console.sign_in_counts WHERE key = ANY($1::text[])`, [
        settlement.clear,
      ]);
      await execute(
        tx,
        sql('console_members_open_session_2')`UPDATE console.sign_in_counts SET n = GREATEST(n - 1, 0) WHERE key = ANY($1::text[])`,
        [settlement.release],
      );
      await execute(
        tx,
        sql('console_members_open_session_3')`
          INSERT INTO console.sign_in_counts (key, n, resets_at) VALUES ($1, 0, now() + make_interval(days => $2))
         ON CONFLICT (key) DO UPDATE SET resets_at = EXCLUDED.resets_at`,
        [settlement.known.key, settlement.known.days],
      );
      await this.insertSession(tx, personId, memberId, session);
    });
  }

  /** A live session with its person and membership as they are now. */
  async findSession(tokenHash: Buffer): Promise<SessionRow | undefined> {
    return queryOne<SessionRow>(
      this.db,
      sql('console_members_find_session')`SELECT s.token_hash, s.person_id, p.email, s.csrf_token, s.member_id, m.account_id, m.role
         FROM console.sessions s JOIN console.people p ON p.id = s.person_id LEFT JOIN console.members m ON m.id = s.member_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [tokenHash],
    );
  }

  /** Of these sessions, the ones still live and the membership each acts in now. */
  liveSessions(tokenHashes: Buffer[]): Promise<Columns<Sessions, 'token_hash' | 'member_id'>[]> {
    return queryRows<Columns<Sessions, 'token_hash' | 'member_id'>>(
      this.db,
      sql('console_members_live_sessions')`
        SELECT token_hash, member_id FROM console.sessions WHERE token_hash = ANY($1::bytea[]) AND expires_at > now()`,
      [tokenHashes],
    );
  }

  /** Moves a session to the person's accepted membership of `accountId`: whether there is one. */
  async chooseAccount(tokenHash: Buffer, accountId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const moved = await queryOne<Columns<Sessions, 'member_id'>>(
        tx,
        sql('console_members_choose_account')`UPDATE console.sessions s SET member_id = m.id FROM console.members m
          WHERE s.token_hash = $1 AND m.person_id = s.person_id AND m.account_id = $2::uuid AND m.accepted_at IS NOT NULL
          RETURNING s.member_id`,
        [tokenHash, accountId],
      );
      if (moved) await notifySessions(tx);
      return moved !== undefined;
    });
  }

  async deleteSession(tokenHash: Buffer): Promise<void> {
    await this.db.transaction(async (tx) => {
      await execute(tx, sql('console_members_delete_session')`DELETE FROM console.sessions WHERE token_hash = $1`, [tokenHash]);
      await notifySessions(tx);
    });
  }

  /** Counts one attempt for `key` in a `windowS` window with one upsert. See docs/adr/010-console-sign-in-limits.md */
  async reserveAttempt(key: string, windowS: number): Promise<Reserved> {
    const [row] = await queryRows<Reserved>(
      this.db,
      sql('console_members_reserve_attempt')`
        INSERT INTO console.sign_in_counts AS c (key, n, resets_at) VALUES ($1, 1, now() + make_interval(secs => $2))
       ON CONFLICT (key) DO UPDATE SET
         n = CASE WHEN c.resets_at <= now() THEN 1 ELSE c.n + 1 END,
         resets_at = CASE WHEN c.resets_at <= now() THEN now() + make_interval(secs => $2) ELSE c.resets_at END
       RETURNING n, GREATEST(1, ceil(EXTRACT(EPOCH FROM resets_at - now())))::int AS retry_after_s`,
      [key, windowS],
    );
    return row;
  }

  /** Gives back attempts reserved (a set-password that worked). */
  async releaseAttempts(keys: string[]): Promise<void> {
    await execute(
      this.db,
      sql('console_members_release_attempts')`UPDATE console.sign_in_counts SET n = GREATEST(n - 1, 0) WHERE key = ANY($1::text[])`,
      [keys],
    );
  }

  /** Whether the member signed in from this (email, address) recently. */
  async isKnown(key: string): Promise<boolean> {
    return (
      (await queryOne<{ ok: number }>(
        this.db,
        sql('console_members_is_known')`SELECT 1 AS ok FROM console.sign_in_counts WHERE key = $1 AND resets_at > now()`,
        [key],
      )) !== undefined
    );
  }

  /** Forgets counters whose window ended long ago. */
  async pruneCounters(): Promise<void> {
    await execute(
      this.db,
      sql('console_members_prune_counters')`DELETE FROM console.sign_in_counts WHERE resets_at < now() - interval '1 day'`,
    );
  }

  private async insertSession(tx: EntityManager, personId: string, memberId: string | null, session: NewSessionRow): Promise<void> {
    await execute(
      tx,
      sql('console_members_insert_session')`INSERT INTO console.sessions (token_hash, person_id, member_id, csrf_token, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5))`,
      [session.tokenHash, personId, memberId, session.csrfToken, session.ttlHours],
    );
  }
}

/** The person's password changed between reading a link and using it: the link's transaction is undone. */
class PasswordChanged extends Error {}
