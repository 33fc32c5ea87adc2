import { Inject, Injectable } from '@nestjs/common';
import type { Role } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import * as argon2 from 'argon2';
import { createHash, randomBytes } from 'node:crypto';
import type { ConsoleConfig } from '../console.config';
import { clientKey } from './client-address';
import { HashGate } from './hash-gate';
import { MemberRow, MembersRepository, Membership, NewSessionRow, Reserved, SessionRow } from './members.repository';
import { CONSOLE_CONFIG } from '../console.config';

/** How long a set-password link works (contract: 24 h). */
export const LINK_TTL_HOURS = 24;
/** How long an address a member signed in from stays known (the per-email limit does not apply to it). */
const KNOWN_ADDRESS_DAYS = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The links' address, the session length, the sign-in limits and the cap on hashes in flight. */
export type MembersConfig = Pick<
  ConsoleConfig,
  | 'APP_URL'
  | 'SESSION_TTL_HOURS'
  | 'SIGN_IN_FAILURES'
  | 'SIGN_IN_EMAIL_FAILURES'
  | 'SIGN_IN_WINDOW_S'
  | 'PASSWORD_HASHES_IN_FLIGHT'
  | 'PASSWORD_HASH_WAIT_MS'
>;

export interface MemberView {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  /** False until the member has used their link (an open invitation). */
  active: boolean;
}

/** A new session: its cookie token, the person and the accounts they may act in (the session acts in one when there is one). */
export interface NewSession {
  token: string;
  person: { id: string; email: string };
  memberships: Membership[];
}

export interface InvitedMember {
  user: { id: string; email: string };
  sign_in_url: string;
}

const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
const newToken = (): string => randomBytes(32).toString('base64url');
/** Passwords as argon2id hashes (one object, so a test can watch the costly calls). */
export const passwords = {
  hash: (password: string): Promise<string> => argon2.hash(password, { type: argon2.argon2id }),
  verify: (hash: string, password: string): Promise<boolean> => argon2.verify(hash, password).catch(() => false),
};
/** A hash compared when the email is unknown, so a wrong email takes as long as a wrong password. */
let decoyHash: Promise<string> | undefined;

export const memberView = (member: MemberRow): MemberView => ({
  id: member.id,
  email: member.email,
  role: member.role,
  created_at: member.created_at,
  active: member.accepted_at !== null,
});

const NOT_RIGHT = 'The email or password is not right.';
const LINK_GONE = 'This link is not valid any more (used, expired or unknown); ask an owner of the team for a new one.';

/**
 * Team members: people (one email, one password) and their memberships of accounts, invitations,
 * roles, argon2id passwords, sessions (SHA-256 of a cookie token) and sign-in limits.
 */
@Injectable()
export class MembersService {
  private readonly hashes: HashGate;

  constructor(
    private readonly members: MembersRepository,
    @Inject(CONSOLE_CONFIG) private readonly config: MembersConfig,
  ) {
    this.hashes = new HashGate(config.PASSWORD_HASHES_IN_FLIGHT, config.PASSWORD_HASH_WAIT_MS);
  }

  /**
   * `admin user create`: the person's membership of the account (a new one is an owner) and a link
   * that sets their password (the operator's reset; a member's role is unchanged).
   */
  async createByOperator(accountId: string, email: string): Promise<InvitedMember> {
    return this.issueLink(await this.members.findOrAddMember(accountId, email, 'owner'), true);
  }

  /**
   * An owner's Invite: a membership and its link, the same answer whether or not the person is a
   * member of another account (their link then asks for their password instead of setting one);
   * a new link for a pending one; 409 for an active member of this account (no takeover).
   */
  async invite(accountId: string, email: string, role: Role): Promise<InvitedMember> {
    const member = await this.members.findOrAddMember(accountId, email, role);
    if (member.accepted_at !== null)
      throw new ApiError('conflict', 'This person is already a member of the team; a member who forgot their password asks the operator.');
    if (member.role !== role) await this.members.setPendingRole(member.id, role);
    return this.issueLink(member, false);
  }

  listMembers(accountId: string): Promise<MemberView[]> {
    return this.members.listMembers(accountId).then((rows) => rows.map(memberView));
  }

  /** Removes a member (by id or email) of the account: their sessions there end with them. Never the last owner. */
  async remove(accountId: string, by: { id: string } | { email: string }): Promise<MemberView> {
    if ('id' in by && !UUID.test(by.id)) throw new ApiError('not_found', 'No such member in this account.');
    const removed = await this.members.removeMember(accountId, by);
    if (removed === 'not_found') throw new ApiError('not_found', 'No such member in this account.');
    if (removed === 'last_owner')
      throw new ApiError('conflict', 'This is the last owner of the account; make another owner first, then remove this one.');
    return memberView(removed);
  }

  /**
   * Uses a one-time link: sets the password (a first invitation or the operator's reset) or, for an
   * invitation of a person who has one, checks it; then signs in to the link's account. An unusable
   * link is refused before any hashing; attempts count per client and per email as sign-ins do.
   */
  async setPassword(token: string, password: string, address: string): Promise<NewSession> {
    const client = clientKey(address);
    const { SIGN_IN_FAILURES: failures, SIGN_IN_EMAIL_FAILURES: emailFailures, SIGN_IN_WINDOW_S: windowS } = this.config;
    this.refuseOver(await this.members.reserveAttempt(`address:${client}`, windowS), failures * 4);
    const tokenHash = hashToken(token);
    const link = await this.members.findLink(tokenHash);
    if (!link) throw new ApiError('not_found', LINK_GONE);
    const who = link.email.toLowerCase();
    this.refuseOver(await this.members.reserveAttempt(`pair:${who} ${client}`, windowS), failures);
    this.refuseOver(await this.members.reserveAttempt(`email:${who}`, windowS), emailFailures);
    const sets = link.resets || link.password_hash === null;
    const seen = link.password_hash;
    if (!sets && !(await this.hashes.run(() => passwords.verify(seen ?? '', password))))
      throw new ApiError('unauthorized', 'This invitation is for someone who already has a console password: enter that password.');
    const newHash = sets ? await this.hashes.run(() => passwords.hash(password)) : undefined;
    const session = this.newSession();
    const member = await this.members.useLink(tokenHash, newHash === undefined ? undefined : { hash: newHash, seen }, session);
    if (!member) throw new ApiError('not_found', LINK_GONE);
    await this.members.releaseAttempts([`address:${client}`, `pair:${who} ${client}`, `email:${who}`]);
    return {
      token: session.token,
      person: { id: member.person_id, email: member.email },
      memberships: [{ member_id: member.id, account_id: member.account_id, role: member.role }],
    };
  }

  /**
   * Signs in, the attempt counted before the password check (per email and client, per client, per
   * email). The session acts in the person's account when they have one; with several they choose.
   * See docs/adr/010-console-sign-in-limits.md
   */
  async signIn(email: string, password: string, address: string): Promise<NewSession> {
    const who = email.toLowerCase();
    const client = clientKey(address);
    const keys = { pair: `pair:${who} ${client}`, address: `address:${client}`, email: `email:${who}`, known: `known:${who} ${client}` };
    const { SIGN_IN_FAILURES: failures, SIGN_IN_EMAIL_FAILURES: emailFailures, SIGN_IN_WINDOW_S: windowS } = this.config;
    this.refuseOver(await this.members.reserveAttempt(keys.pair, windowS), failures);
    this.refuseOver(await this.members.reserveAttempt(keys.address, windowS), failures * 4);
    const known = await this.members.isKnown(keys.known);
    if (!known) this.refuseOver(await this.members.reserveAttempt(keys.email, windowS), emailFailures);
    const person = await this.members.findPerson(email);
    decoyHash ??= passwords.hash(newToken());
    const decoy = await decoyHash;
    const valid = await this.hashes.run(() => passwords.verify(person?.password_hash ?? decoy, password));
    const memberships = person && person.password_hash && valid ? await this.members.memberships(person.id) : [];
    if (!person || memberships.length === 0) {
      await this.members.pruneCounters();
      throw new ApiError('unauthorized', NOT_RIGHT);
    }
    const session = this.newSession();
    await this.members.openSession(person.id, memberships.length === 1 ? (memberships[0]?.member_id ?? null) : null, session, {
      clear: [keys.pair],
      release: known ? [keys.address] : [keys.address, keys.email],
      known: { key: keys.known, days: KNOWN_ADDRESS_DAYS },
    });
    return { token: session.token, person: { id: person.id, email: person.email }, memberships };
  }

  session(token: string): Promise<SessionRow | undefined> {
    return this.members.findSession(hashToken(token));
  }

  /** The accounts the session's person may act in. */
  memberships(session: SessionRow): Promise<Membership[]> {
    return this.members.memberships(session.person_id);
  }

  /** Moves the session to another account of its person (404 when they are not an active member of it). */
  async chooseAccount(session: SessionRow, accountId: string): Promise<void> {
    if (!(await this.members.chooseAccount(session.token_hash, accountId)))
      throw new ApiError('not_found', 'You are not a member of that account.');
  }

  signOut(token: string): Promise<void> {
    return this.members.deleteSession(hashToken(token));
  }

  private refuseOver(reserved: Reserved, limit: number): void {
    if (reserved.n > limit)
      throw new ApiError('rate_limited', 'Too many failed sign-ins; wait and try again.', undefined, {
        'retry-after': String(reserved.retry_after_s),
      });
  }

  private async issueLink(member: MemberRow, resets: boolean): Promise<InvitedMember> {
    const token = newToken();
    await this.members.insertPasswordLink(member.id, hashToken(token), LINK_TTL_HOURS, resets);
    return { user: { id: member.id, email: member.email }, sign_in_url: `${this.config.APP_URL}/set-password?token=${token}` };
  }

  private newSession(): NewSessionRow & { token: string } {
    const token = newToken();
    return { token, tokenHash: hashToken(token), csrfToken: newToken(), ttlHours: this.config.SESSION_TTL_HOURS };
  }
}
