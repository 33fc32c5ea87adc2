import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'svc_cust_';
/** `svc_cust_` + 32 random bytes in base64url (43 characters). */
export const API_KEY_PATTERN = /^svc_cust_[A-Za-z0-9_-]{43}$/;
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * SHA-256 of the key. A key carries 256 random bits, so a fast hash is as safe as a slow KDF
 * here and keeps authentication off the CPU's critical path.
 */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function displayPrefix(key: string): string {
  return key.slice(0, SHOWN_PREFIX_LENGTH);
}

/** Constant-time equality of two key hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
