import { VISITOR_TOKEN } from '@svc/contracts';
import { createHash, randomBytes } from 'node:crypto';

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
