import { ApiError } from '@svc/platform';
import * as argon2 from 'argon2';
import { createHash, randomBytes } from 'node:crypto';
import { MemberRow, MembersRepository, SessionRow } from './members.repository';

/** How long a set-password link works (contract: 24 h). */
export const LINK_TTL_HOURS = 24;

export interface ThrottleSettings {
  /** Failed sign-ins allowed per email in the window (4× per client address). */
  failures: number;
  windowS: number;
}

export interface MemberView {
  id: string;
  email: string;
  created_at: string;
  /** False until the member has chosen a password (an open invitation). */
  active: boolean;
}

export interface NewSession {
  token: string;
  member: MemberRow;
}

const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
const newToken = (): string => randomBytes(32).toString('base64url');
/** A hash compared when the email is unknown, so a wrong email takes as long as a wrong password. */
let decoyHash: Promise<string> | undefined;

export const memberView = (member: MemberRow): MemberView => ({
  id: member.id,
  email: member.email,
  created_at: member.created_at,
  active: member.password_hash !== null,
});

/**
 * Team members: invitations (a one-time set-password link, 24 h), passwords hashed with argon2id,
 * sessions (an opaque cookie token stored as a SHA-256 hash, with a CSRF token of its own), and
 * throttled sign-in (failed attempts counted per email and per client address in PostgreSQL, so
 * every console replica sees the same count).
 */
export class MembersService {
  constructor(
    private readonly members: MembersRepository,
    private readonly appUrl: string,
    private readonly sessionTtlHours: number,
    private readonly throttle: ThrottleSettings,
  ) {}

  /** `admin user create` and the console's Invite: the member (created if new) and a fresh set-password link. */
  async invite(accountId: string, email: string): Promise<{ user: { id: string; email: string }; sign_in_url: string }> {
    const existing = await this.members.findByEmail(email);
    if (existing && existing.account_id !== accountId)
      throw new ApiError('conflict', 'This email already belongs to a member of another account.');
    const member = existing ?? (await this.members.findOrCreate(accountId, email));
    if (member.account_id !== accountId) throw new ApiError('conflict', 'This email already belongs to a member of another account.');
    const token = newToken();
    await this.members.insertPasswordLink(member.id, hashToken(token), LINK_TTL_HOURS);
    return { user: { id: member.id, email: member.email }, sign_in_url: `${this.appUrl}/set-password?token=${token}` };
  }

  listMembers(accountId: string): Promise<MemberView[]> {
    return this.members.listMembers(accountId).then((rows) => rows.map(memberView));
  }

  /** Chooses the password with a one-time link and signs the member in. */
  async setPassword(token: string, password: string): Promise<NewSession> {
    const member = await this.members.useLink(hashToken(token), await argon2.hash(password, { type: argon2.argon2id }));
    if (!member)
      throw new ApiError('not_found', 'This link is not valid any more (used, expired or unknown); ask a team member for a new one.');
    return this.startSession(member);
  }

  async signIn(email: string, password: string, address: string): Promise<NewSession> {
    const failures = await this.members.countFailures(email, address, this.throttle.windowS);
    if (failures.email >= this.throttle.failures || failures.address >= this.throttle.failures * 4) {
      const retryAfter = Math.max(1, this.throttle.windowS - failures.oldest_s);
      throw new ApiError('rate_limited', 'Too many failed sign-ins; wait and try again.', undefined, { 'retry-after': String(retryAfter) });
    }
    const member = await this.members.findByEmail(email);
    decoyHash ??= argon2.hash(newToken(), { type: argon2.argon2id });
    const valid = await argon2.verify(member?.password_hash ?? (await decoyHash), password).catch(() => false);
    if (!member || !member.password_hash || !valid) {
      await this.members.recordFailure(email, address);
      throw new ApiError('unauthorized', 'The email or password is not right.');
    }
    await this.members.clearFailures(email);
    return this.startSession(member);
  }

  session(token: string): Promise<SessionRow | undefined> {
    return this.members.findSession(hashToken(token));
  }

  signOut(token: string): Promise<void> {
    return this.members.deleteSession(hashToken(token));
  }

  private async startSession(member: MemberRow): Promise<NewSession> {
    const token = newToken();
    await this.members.insertSession(member.id, hashToken(token), newToken(), this.sessionTtlHours);
    return { token, member };
  }
}
