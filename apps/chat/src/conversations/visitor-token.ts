import { VISITOR_TOKEN } from '@svc/contracts';
import { createHash, randomBytes } from 'node:crypto';
import { ChatConfig, parseDuration } from '../chat.config';

/** A new visitor token: `vis_` + 32 random bytes, base64url. Shown to the widget only; stored as its hash. */
export function newVisitorToken(): string {
  return `vis_${randomBytes(32).toString('base64url')}`;
}

/** The SHA-256 a token is stored and looked up as (256 random bits need no slow hash). */
export function visitorTokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function isVisitorToken(value: string): boolean {
  return VISITOR_TOKEN.test(value);
}

/** A token for the widget that asks for a confirmation, and the hash its conversation gets once the confirmation is made. */
export function successorToken(): { token: string; hash: Buffer } {
  const token = newVisitorToken();
  return { token, hash: visitorTokenHash(token) };
}

/** VISITOR_TOKEN_MAX_AGE in milliseconds. */
export function visitorTokenMaxAgeMs(config: Pick<ChatConfig, 'VISITOR_TOKEN_MAX_AGE'>): number {
  return parseDuration(config.VISITOR_TOKEN_MAX_AGE);
}

/** How long a token read with its conversation still lasts (ms; ≤ 0: expired, or its age was not read). */
export function tokenLifeLeftMs(row: { token_age_ms?: number }, maxAgeMs: number): number {
  return row.token_age_ms === undefined ? 0 : maxAgeMs - row.token_age_ms;
}

/**
 * The hash a conversation's token becomes when an address of its customer is confirmed: the
 * successor the widget that asked holds, else that of a token nobody holds.
 */
export function confirmedTokenHash(nextTokenHash: Buffer | null): Buffer {
  return nextTokenHash ?? visitorTokenHash(newVisitorToken());
}
