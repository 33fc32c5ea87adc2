import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed webhooks, both sides: the dispatcher signs each attempt, a receiver verifies it. Only
 * `node:crypto`, so a business can copy this file into its own receiver.
 *
 * X-SVC-Signature = "sha256=" + lowercase hex HMAC-SHA256(key = the whole secret as UTF-8, prefix
 * included; message = "{X-SVC-Timestamp}.{raw body bytes}").
 */

/** Request headers of every delivery (HTTP header names are case-insensitive; Node lowercases them). */
export const WEBHOOK_HEADERS = {
  event: 'X-SVC-Event',
  eventId: 'X-SVC-Event-Id',
  timestamp: 'X-SVC-Timestamp',
  signature: 'X-SVC-Signature',
} as const;

/** A receiver refuses a timestamp further than this from its own clock (replay protection). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SCHEME = 'sha256=';
const TIMESTAMP = /^\d{1,15}$/;

export type RawBody = string | Uint8Array;

/** The X-SVC-Signature value for `rawBody` sent at `timestamp` (Unix seconds). */
export function sign(secret: string, timestamp: number | string, rawBody: RawBody): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return `${SCHEME}${hmac.digest('hex')}`;
}

export interface VerifyOptions {
  /** Largest accepted distance between the timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock in Unix seconds (default: now). */
  nowSeconds?: number;
}

/**
 * True when `signature` is the signature of `rawBody` at `timestamp` with `secret` and the
 * timestamp is within the tolerance. The comparison takes the same time wherever the values differ.
 * Pass the raw request bytes, before any JSON parsing: a re-serialised body does not verify.
 */
export function verify(
  secret: string,
  timestamp: string | undefined,
  rawBody: RawBody,
  signature: string | undefined,
  options: VerifyOptions = {},
): boolean {
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !TIMESTAMP.test(timestamp)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(sign(secret, timestamp, rawBody), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
