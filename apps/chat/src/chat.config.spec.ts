import { loadConfig } from '@svc/platform';
import { chatConfigSpec, handoverSweepIntervalMs, parseDuration } from './chat.config';

describe('chat configuration', () => {
  it('reads HANDOVER_WAIT as a duration', () => {
    expect(parseDuration('3m')).toBe(180_000);
    expect(parseDuration('2s')).toBe(2_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('30d')).toBe(2_592_000_000);
    expect(() => parseDuration('3 minutes')).toThrow('must be a duration');
  });

  it('refuses a bad HANDOVER_WAIT or LLM_BASE_URL at boot, naming the variable', () => {
    expect(() => loadConfig(chatConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true', HANDOVER_WAIT: 'soon' })).toThrow(
      /HANDOVER_WAIT must be a duration/,
    );
    expect(() => loadConfig(chatConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true', LLM_BASE_URL: 'ftp://x' })).toThrow(
      /LLM_BASE_URL must be an http\(s\) URL/,
    );
    const config = loadConfig(chatConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true', LLM_BASE_URL: 'http://127.0.0.1:9/v1/' });
    expect(config.LLM_BASE_URL).toBe('http://127.0.0.1:9/v1');
    expect(config.HANDOVER_WAIT).toBe('3m');
    expect(config.VISITOR_TOKEN_MAX_AGE).toBe('30d');
    expect(() => loadConfig(chatConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true', VISITOR_TOKEN_MAX_AGE: '30 days' })).toThrow(
      /VISITOR_TOKEN_MAX_AGE must be a duration/,
    );
  });

  it("refuses a WHATSAPP_APP_SECRET under 32 characters (the template's `change-me` too); empty turns WhatsApp off", () => {
    const load = (value: string) => () => loadConfig(chatConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true', WHATSAPP_APP_SECRET: value });
    expect(load('change-me')).toThrow(/WHATSAPP_APP_SECRET must be at least 32 characters/);
    expect(load('x'.repeat(31))).toThrow(/WHATSAPP_APP_SECRET must be at least 32/);
    expect(load('x'.repeat(32))().WHATSAPP_APP_SECRET).toBe('x'.repeat(32));
    expect(load('')().WHATSAPP_APP_SECRET).toBe('');
    expect(load('dev-whatsapp-app-secret-0123456789')().WHATSAPP_APP_SECRET).toHaveLength(34);
  });

  it('looks for due hand-overs often enough for the wait, between 0.5 and 5 s', () => {
    expect(handoverSweepIntervalMs(2_000)).toBe(500);
    expect(handoverSweepIntervalMs(30_000)).toBe(3_000);
    expect(handoverSweepIntervalMs(180_000)).toBe(5_000);
  });
});
