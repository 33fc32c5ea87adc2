import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed webhooks, both sides: the dispatcher signs each attempt, a receiver verifies it. Only
 * `node:crypto`; published as `@svc/webhook-signing` (see this folder's README).
 *
 * X-SVC-Signature = "sha256=" + lowercase hex HMAC-SHA256(key = the whole secret as UTF-8, prefix
 * included; message = "{X-SVC-Timestamp}.{raw body bytes}").
 *
 * Secret rotation: for the overlap after a rotation, X-SVC-Signature is still signed with the
 * previous secret and X-SVC-Signature-Next carries the same scheme signed with the new secret
 * (same timestamp, same body). After the overlap X-SVC-Signature is signed with the new secret and
 * X-SVC-Signature-Next is absent. So a receiver holding either secret verifies every delivery.
 */

/** Request headers of every delivery (HTTP header names are case-insensitive; Node lowercases them). */
export const WEBHOOK_HEADERS = {
  event: 'X-SVC-Event',
  eventId: 'X-SVC-Event-Id',
  timestamp: 'X-SVC-Timestamp',
  signature: 'X-SVC-Signature',
  /** Only during a secret rotation's overlap: the signature with the new secret. */
  signatureNext: 'X-SVC-Signature-Next',
  /** `1` on a test send (`POST /webhooks/{id}/test`, event id 0). */
  test: 'X-SVC-Test',
} as const;

/** A receiver refuses a timestamp further than this from its own clock (replay protection). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SCHEME = 'sha256=';
const TIMESTAMP = /^\d{1,15}$/;

export type RawBody = string | Uint8Array;

/** The kinds of event the service sends (a newer service may send more). */
export type SvcEventKind =
  | 'contact.confirmed'
  | 'consent.granted'
  | 'consent.withdrawn'
  | 'handover.created'
  | 'conversation.needs_human'
  | 'message.received'
  | 'message.sent';

/** A delivered event: the same object `GET /events` returns. */
export interface SvcWebhookEvent {
  /** The feed id: the same in every attempt and in `GET /events`; 0 for a test send. */
  id: number;
  event: SvcEventKind;
  /** When it happened (UTC, microseconds). */
  at: string;
  data: Record<string, unknown>;
}

/** The X-SVC-Signature value for `rawBody` sent at `timestamp` (Unix seconds). */
export function sign(secret: string, timestamp: number | string, rawBody: RawBody): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return `${SCHEME}${hmac.digest('hex')}`;
}

export interface SignOptions {
  /** Unix seconds (default: now). */
  timestamp?: number;
  /** During a rotation's overlap: the new secret, which signs X-SVC-Signature-Next (`secret` is then the previous one). */
  nextSecret?: string;
  /** X-SVC-Event-Id and X-SVC-Event (default: read from the body's `id` and `event`). */
  eventId?: string | number;
  kind?: string;
}

/** The headers the service sends with `rawBody` (for tests of a receiver). */
export function signedHeaders(rawBody: RawBody, secret: string, options: SignOptions = {}): Record<string, string> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  let parsed: { id?: unknown; event?: unknown } = {};
  if (options.eventId === undefined || options.kind === undefined) {
    try {
      parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8')) as typeof parsed;
    } catch {
      parsed = {};
    }
  }
  return {
    'Content-Type': 'application/json',
    [WEBHOOK_HEADERS.event]: String(options.kind ?? parsed.event ?? ''),
    [WEBHOOK_HEADERS.eventId]: String(options.eventId ?? parsed.id ?? ''),
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: sign(secret, timestamp, rawBody),
    ...(options.nextSecret === undefined ? {} : { [WEBHOOK_HEADERS.signatureNext]: sign(options.nextSecret, timestamp, rawBody) }),
  };
}

/** Why a delivery was refused. */
export type VerificationFailure = 'missing_header' | 'invalid_timestamp' | 'stale_timestamp' | 'bad_signature' | 'invalid_body';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: VerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Request headers as Node (`req.headers`), Fetch (`Headers`) or a plain object with any case give them. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | readonly string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() === wanted) return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

export interface VerifyOptions {
  /** Largest accepted distance between X-SVC-Timestamp and now, in seconds (default 300). */
  toleranceSec?: number;
  /** The receiver's clock: a Date or Unix seconds (default: now). */
  now?: Date | number;
}

function equal(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks a delivery and returns its parsed event; throws WebhookVerificationError naming the reason
 * otherwise. `secrets`: the endpoint's secret, or several (e.g. the old and the new one while you
 * roll a rotated secret out): the delivery verifies when X-SVC-Signature or X-SVC-Signature-Next is
 * the signature of the raw body with any of them. Pass the raw request bytes, before any JSON parsing.
 */
export function verify<T = SvcWebhookEvent>(
  rawBody: RawBody,
  headers: HeaderSource,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): T {
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp);
  const signatures = [header(headers, WEBHOOK_HEADERS.signature), header(headers, WEBHOOK_HEADERS.signatureNext)].filter(
    (s): s is string => typeof s === 'string',
  );
  if (timestamp === undefined) throw new WebhookVerificationError('missing_header', `${WEBHOOK_HEADERS.timestamp} is missing`);
  if (signatures.length === 0) throw new WebhookVerificationError('missing_header', `${WEBHOOK_HEADERS.signature} is missing`);
  if (!TIMESTAMP.test(timestamp))
    throw new WebhookVerificationError('invalid_timestamp', `${WEBHOOK_HEADERS.timestamp} must be Unix seconds`);
  const now = options.now === undefined ? Date.now() / 1000 : options.now instanceof Date ? options.now.getTime() / 1000 : options.now;
  if (Math.abs(Math.floor(now) - Number(timestamp)) > (options.toleranceSec ?? SIGNATURE_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `${WEBHOOK_HEADERS.timestamp} is more than ${options.toleranceSec ?? SIGNATURE_TOLERANCE_SECONDS} s from now`,
    );
  }
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  // Every comparison is made (no early exit), each in constant time.
  let matched = false;
  for (const secret of keys) {
    const expected = sign(secret, timestamp, rawBody);
    for (const given of signatures) matched = equal(given, expected) || matched;
  }
  if (!matched) throw new WebhookVerificationError('bad_signature', 'no signature matches the body with the given secret(s)');
  try {
    return JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
}
