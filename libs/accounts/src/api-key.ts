import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'svc_cust_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters: 256 random bits. */
const RANDOM_LENGTH = 43;
/** CRC32 of everything before it, in base62 (62^6 > 2^32). */
const CHECKSUM_LENGTH = 6;
/** `svc_cust_` + 43 random base62 characters + a 6-character checksum: the keys made now. */
export const API_KEY_PATTERN = /^svc_cust_[0-9A-Za-z]{49}$/;
/** `svc_cust_` + 32 random bytes in base64url (43 characters), without checksum: keys made before; still valid. */
export const LEGACY_API_KEY_PATTERN = /^svc_cust_[A-Za-z0-9_-]{43}$/;
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;

/** Uniform base62 characters (bytes ≥ 248 are dropped so that every character is as likely). */
function randomBase62(length: number): string {
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length)) if (byte < 248 && text.length < length) text += BASE62[byte % 62];
  }
  return text;
}

function checksumOf(body: string): string {
  let value = crc32(body);
  let text = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++, value = Math.floor(value / 62)) text = BASE62[value % 62] + text;
  return text;
}

export function generateApiKey(): string {
  const body = API_KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksumOf(body);
}

/** Whether `token` can be a key, without a lookup. See docs/adr/008-api-key-checksum.md */
export function isWellFormedApiKey(token: string): boolean {
  if (API_KEY_PATTERN.test(token)) {
    const split = token.length - CHECKSUM_LENGTH;
    return checksumOf(token.slice(0, split)) === token.slice(split);
  }
  return LEGACY_API_KEY_PATTERN.test(token);
}

/** SHA-256 of the key: with 256 random bits a fast hash is as safe as a KDF (ADR 008). */
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
