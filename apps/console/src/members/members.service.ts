import { Inject, Injectable } from '@nestjs/common';
import type { Role } from '@svc/contracts';
import { APP_CONFIG, ApiError } from '@svc/platform';
import * as argon2 from 'argon2';
import { createHash, randomBytes } from 'node:crypto';
import type { ConsoleConfig } from '../console.config';
import { MemberRow, MembersRepository, Reserved, SessionRow } from './members.repository';

/** How long a set-password link works (contract: 24 h). */
export const LINK_TTL_HOURS = 24;
/** How long an address a member signed in from stays known (the per-email limit does not apply to it). */
const KNOWN_ADDRESS_DAYS = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The links' address, the session length and the sign-in limits. */
export type MembersConfig = Pick<
  ConsoleConfig,
  'APP_URL' | 'SESSION_TTL_HOURS' | 'SIGN_IN_FAILURES' | 'SIGN_IN_EMAIL_FAILURES' | 'SIGN_IN_WINDOW_S'
>;

export interface MemberView {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  /** False until the member has chosen a password (an open invitation). */
  active: boolean;
}

export interface NewSession {
  token: string;
  member: MemberRow;
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
  active: member.password_hash !== null,
});

const OTHER_ACCOUNT = 'This email already belongs to a member of another account.';

/** Team members: invitations, roles, argon2id passwords, sessions (SHA-256 of a cookie token) and sign-in limits. */
@Injectable()
export class MembersService {
  constructor(
    private readonly members: MembersRepository,
    @Inject(APP_CONFIG) private readonly config: MembersConfig,
  ) {}

  /** `admin user create`: a new member is an owner; an existing member of the account keeps their role and gets a new link (a reset). */
  async createByOperator(accountId: string, email: string): Promise<InvitedMember> {
    const member = await this.members.findOrCreate(accountId, email, 'owner');
    if (member.account_id !== accountId) throw new ApiError('conflict', OTHER_ACCOUNT);
    return this.issueLink(member);
  }

  /** An owner's Invite: a new member, or a new link for a pending one; 409 for a member with a password (no takeover). */
  async invite(accountId: string, email: string, role: Role): Promise<InvitedMember> {
    const member = await this.members.findOrCreate(accountId, email, role);
    if (member.account_id !== accountId) throw new ApiError('conflict', OTHER_ACCOUNT);
    if (member.password_hash !== null)
      throw new ApiError('conflict', 'This person is already a member of the team; a member who forgot their password asks the operator.');
    if (member.role !== role) await this.members.setPendingRole(member.id, role);
    return this.issueLink(member);
  }

  listMembers(accountId: string): Promise<MemberView[]> {
    return this.members.listMembers(accountId).then((rows) => rows.map(memberView));
  }

  /** Removes a member (by id or email) of the account: their sessions end with them. Never the last owner. */
  async remove(accountId: string, by: { id: string } | { email: string }): Promise<MemberView> {
    if ('id' in by && !UUID.test(by.id)) throw new ApiError('not_found', 'No such member in this account.');
    const removed = await this.members.removeMember(accountId, by);
    if (removed === 'not_found') throw new ApiError('not_found', 'No such member in this account.');
    if (removed === 'last_owner')
      throw new ApiError('conflict', 'This is the last owner of the account; make another owner first, then remove this one.');
    return memberView(removed);
  }

  /** Chooses the password with a one-time link and signs the member in; an unusable link is refused before any hashing. */
  async setPassword(token: string, password: string): Promise<NewSession> {
    const tokenHash = hashToken(token);
    const member = (await this.members.linkIsUsable(tokenHash))
      ? await this.members.useLink(tokenHash, await passwords.hash(password))
      : undefined;
    if (!member)
      throw new ApiError(
        'not_found',
        'This link is not valid any more (used, expired or unknown); ask an owner of the team for a new one.',
      );
    return this.startSession(member);
  }

  /** Signs in, the attempt counted before the password check. See docs/adr/010-console-sign-in-limits.md */
  async signIn(email: string, password: string, address: string): Promise<NewSession> {
    const who = email.toLowerCase();
    const keys = { pair: `pair:${who} ${address}`, address: `address:${address}`, email: `email:${who}`, known: `known:${who} ${address}` };
    const { SIGN_IN_FAILURES: failures, SIGN_IN_EMAIL_FAILURES: emailFailures, SIGN_IN_WINDOW_S: windowS } = this.config;
    this.refuseOver(await this.members.reserveAttempt(keys.pair, windowS), failures);
    this.refuseOver(await this.members.reserveAttempt(keys.address, windowS), failures * 4);
    const known = await this.members.isKnown(keys.known);
    if (!known) this.refuseOver(await this.members.reserveAttempt(keys.email, windowS), emailFailures);
    const member = await this.members.findByEmail(email);
    decoyHash ??= passwords.hash(newToken());
    const valid = await passwords.verify(member?.password_hash ?? (await decoyHash), password);
    if (!member || !member.password_hash || !valid) {
      await this.members.pruneCounters();
      throw new ApiError('unauthorized', 'The email or password is not right.');
    }
    await this.members.settleAttempt([keys.pair], known ? [keys.address] : [keys.address, keys.email]);
    await this.members.markKnown(keys.known, KNOWN_ADDRESS_DAYS);
    return this.startSession(member);
  }

  session(token: string): Promise<SessionRow | undefined> {
    return this.members.findSession(hashToken(token));
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

  private async issueLink(member: MemberRow): Promise<InvitedMember> {
    const token = newToken();
    await this.members.insertPasswordLink(member.id, hashToken(token), LINK_TTL_HOURS);
    return { user: { id: member.id, email: member.email }, sign_in_url: `${this.config.APP_URL}/set-password?token=${token}` };
  }

  private async startSession(member: MemberRow): Promise<NewSession> {
    const token = newToken();
    await this.members.insertSession(member.id, hashToken(token), newToken(), this.config.SESSION_TTL_HOURS);
    return { token, member };
  }
}
