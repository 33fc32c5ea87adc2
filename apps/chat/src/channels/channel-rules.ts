import { growingDelayMs } from '@svc/jobs';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The words that withdraw WhatsApp consents (the contract's list), compared without case or surrounding spaces. */
const STOP_WORDS = new Set(['STOP', 'STOPP', 'ARRET', 'ARRÊT', 'BAJA', 'ALTO']);

export function isStopWord(text: string): boolean {
  return STOP_WORDS.has(text.trim().toLocaleUpperCase('fr'));
}

/** A phone confirmation code as the customer sends it back: six digits, spaces around allowed. */
export function confirmationCodeIn(text: string): string | null {
  const match = /^\s*(\d{6})\s*$/.exec(text);
  return match ? (match[1] as string) : null;
}

/** `X-Hub-Signature-256`: `sha256=` + the lowercase hex HMAC-SHA256 of the raw body keyed with the app secret. */
export function whatsappSignature(rawBody: Buffer, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function isValidWhatsappSignature(rawBody: Buffer, header: unknown, appSecret: string): boolean {
  if (appSecret === '' || typeof header !== 'string') return false;
  const expected = Buffer.from(whatsappSignature(rawBody, appSecret));
  const given = Buffer.from(header.trim().toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A value sent against the configured one, in constant time whatever their lengths (both hashed first). */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || expected === '') return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** WhatsApp's customer service window: free-form messages only within 24 hours of the customer's last message. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

export type WhatsappSendRefusal = 'no_whatsapp' | 'window_closed' | 'no_consent' | 'no_phone';

/**
 * Whether the team may send on WhatsApp now: free-form only inside the 24-hour window; a template
 * after it only with an active reply_whatsapp / future_whatsapp consent and a phone number.
 * null: allowed; otherwise the reason it is refused.
 */
export function whatsappRefusal(
  send: 'text' | 'template',
  state: { lastCustomerAt: Date | null; now: Date; hasWhatsappConsent: boolean; phone: string | null },
): WhatsappSendRefusal | null {
  const inWindow = state.lastCustomerAt !== null && state.now.getTime() - state.lastCustomerAt.getTime() < WHATSAPP_WINDOW_MS;
  if (send === 'text') return inWindow ? null : 'window_closed';
  if (inWindow) return null;
  if (state.phone === null) return 'no_phone';
  return state.hasWhatsappConsent ? null : 'no_consent';
}

/** Growing delay before the next attempt of a send: 2 s, 4 s, 8 s … at most 10 minutes. */
export function retryDelayMs(attempts: number, baseMs = 2_000): number {
  return growingDelayMs(attempts, baseMs, 10 * 60_000);
}
