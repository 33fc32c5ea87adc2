import {
  confirmationCodeIn,
  isStopWord,
  isValidWhatsappSignature,
  retryDelayMs,
  sameSecret,
  whatsappRefusal,
  whatsappSignature,
} from './channel-rules';

describe('channel rules', () => {
  it('compares a verify token in constant time, any length or type refused without throwing', () => {
    expect(sameSecret('verify-me', 'verify-me')).toBe(true);
    for (const given of ['verify-m', 'verify-me ', 'Verify-me', '', 'x'.repeat(10_000), undefined, ['verify-me'], 42])
      expect(sameSecret(given, 'verify-me')).toBe(false);
    expect(sameSecret('', '')).toBe(false);
  });

  it('takes STOP in any case and its translations, nothing else', () => {
    for (const word of ['STOP', 'stop', ' Stop ', 'STOPP', 'arret', 'ARRÊT', 'arrêt', 'Baja', 'ALTO']) expect(isStopWord(word)).toBe(true);
    for (const word of ['stop please', 'halt', '', 'STO P']) expect(isStopWord(word)).toBe(false);
  });

  it('reads a six-digit code and only that', () => {
    expect(confirmationCodeIn(' 123456 ')).toBe('123456');
    expect(confirmationCodeIn('12345')).toBeNull();
    expect(confirmationCodeIn('code 123456')).toBeNull();
  });

  it('checks X-Hub-Signature-256 over the raw body with the app secret', () => {
    const body = Buffer.from('{"object":"whatsapp_business_account"}');
    const header = whatsappSignature(body, 'app-secret');
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(isValidWhatsappSignature(body, header, 'app-secret')).toBe(true);
    expect(isValidWhatsappSignature(body, header.toUpperCase().replace('SHA256', 'sha256'), 'app-secret')).toBe(true);
    expect(isValidWhatsappSignature(Buffer.from(`${body.toString()} `), header, 'app-secret')).toBe(false);
    expect(isValidWhatsappSignature(body, header, 'other')).toBe(false);
    expect(isValidWhatsappSignature(body, undefined, 'app-secret')).toBe(false);
    expect(isValidWhatsappSignature(body, header, '')).toBe(false);
  });

  it('allows free-form only within 24 h; after it a template only with a whatsapp consent and a phone', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const recent = new Date('2026-11-24T00:00:00Z');
    const old = new Date('2026-11-23T11:59:59Z');
    const base = { now, hasWhatsappConsent: false, phone: '+447700900123' };
    expect(whatsappRefusal('text', { ...base, lastCustomerAt: recent })).toBeNull();
    expect(whatsappRefusal('text', { ...base, lastCustomerAt: old })).toBe('window_closed');
    expect(whatsappRefusal('text', { ...base, lastCustomerAt: null })).toBe('window_closed');
    expect(whatsappRefusal('template', { ...base, lastCustomerAt: recent })).toBeNull();
    expect(whatsappRefusal('template', { ...base, lastCustomerAt: old })).toBe('no_consent');
    expect(whatsappRefusal('template', { ...base, lastCustomerAt: old, hasWhatsappConsent: true })).toBeNull();
    expect(whatsappRefusal('template', { ...base, lastCustomerAt: old, hasWhatsappConsent: true, phone: null })).toBe('no_phone');
  });

  it('waits longer after each failed attempt, up to ten minutes', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n))).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(retryDelayMs(30)).toBe(600_000);
  });
});
