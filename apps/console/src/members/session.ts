import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiError } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { MemberSession, SessionRow } from './members.repository';
import { MembersService } from './members.service';

export const SESSION_COOKIE = 'svc_console';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type RequestWithMember = FastifyRequest & { member?: SessionRow };

/** Whether the session acts in an account (one is chosen). */
export const inAccount = (session: SessionRow): session is MemberSession =>
  session.member_id !== null && session.account_id !== null && session.role !== null;

/** The value of one cookie of the request, or undefined. */
export function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Session cookie: HttpOnly, SameSite=Lax, Path=/, Secure when the console is served over https. */
export function setSessionCookie(reply: FastifyReply, token: string, maxAgeS: number, secure: boolean): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`);
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  setSessionCookie(reply, '', 0, secure);
}

/** CSRF defence for a write: the console's own `Origin` when sent, and the session's token in `X-CSRF-Token`. */
export function checkOrigin(request: FastifyRequest, appOrigin: string): void {
  const origin = request.headers.origin;
  if (!SAFE_METHODS.has(request.method) && typeof origin === 'string' && origin !== appOrigin) {
    throw new ApiError('forbidden_origin', 'This request did not come from the console.');
  }
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Whether a request's `X-CSRF-Token` is the session's, compared in constant time (of equal-length digests, so any length is safe). */
export function csrfMatches(sent: string | string[] | undefined, expected: string): boolean {
  return typeof sent === 'string' && timingSafeEqual(digest(sent), digest(expected));
}

/** Refuses (403 `forbidden`) a member who is not an owner of the account. */
export function requireOwner(member: MemberSession): void {
  if (member.role !== 'owner') throw new ApiError('forbidden', 'Only an owner of the account can do this.');
}

/**
 * The signed-in person of a request, whichever account (if any) their session acts in (401 without
 * a live session; 403 for a write without the CSRF token).
 */
export async function authenticatePerson(request: FastifyRequest, members: MembersService, appOrigin: string): Promise<SessionRow> {
  const token = cookie(request, SESSION_COOKIE);
  const session = token ? await members.session(token) : undefined;
  if (!session) throw new ApiError('unauthorized', 'Sign in first.');
  checkOrigin(request, appOrigin);
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(request.headers['x-csrf-token'], session.csrf_token)) {
    throw new ApiError('forbidden_origin', 'The CSRF token is missing or wrong; reload the page.');
  }
  (request as RequestWithMember).member = session;
  return session;
}

/** The signed-in member of a request, in the account their session acts in (403 `forbidden` before one is chosen). */
export async function authenticate(request: FastifyRequest, members: MembersService, appOrigin: string): Promise<MemberSession> {
  const session = await authenticatePerson(request, members, appOrigin);
  if (!inAccount(session)) throw new ApiError('forbidden', 'Choose an account first.');
  return session;
}

/** The session a guard authenticated: `handler(@Member() member: MemberSession)` (or a `SessionRow` after `PersonGuard`). */
export const Member = createParamDecorator((_: unknown, ctx: ExecutionContext): SessionRow => {
  const member = ctx.switchToHttp().getRequest<RequestWithMember>().member;
  if (!member) throw new ApiError('unauthorized', 'Sign in first.');
  return member;
});
