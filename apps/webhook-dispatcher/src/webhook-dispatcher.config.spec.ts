import { ConfigError, generateInternalKey, loadConfig } from '@svc/platform';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookDispatcherConfigSpec } from './webhook-dispatcher.config';

/** The settings every app needs, with values of its own (not the published development ones). */
const KEYS = { INTERNAL_PUBLIC_KEYS: `gateway:${generateInternalKey().publicKey}`, LOG_PATH_SECRET: 'x'.repeat(40) };
const production = { NODE_ENV: 'production', ...KEYS };

describe('webhook-dispatcher configuration', () => {
  it('has the contract defaults: port 3005, 8 s, the retry schedule, private networks refused', () => {
    const config = loadConfig(webhookDispatcherConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true' });
    expect(config).toMatchObject({
      PORT: 3005,
      WEBHOOK_TIMEOUT_MS: 8000,
      WEBHOOK_RETRY_SCHEDULE: '1m,5m,30m,2h,6h,12h',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: false,
      WEBHOOK_CA_FILE: '',
    });
    expect(config).toMatchObject({ WEBHOOK_SECRET_KEY_ID: '1', WEBHOOK_SECRET_KEYS_PREVIOUS: '' });
  });

  it('refuses the development WEBHOOK_SECRET_KEY without ALLOW_INSECURE_DEV_DEFAULTS, naming both', () => {
    expect(() => loadConfig(webhookDispatcherConfigSpec, { ...KEYS })).toThrow(
      /WEBHOOK_SECRET_KEY is not set and its development default is published in the repository: set WEBHOOK_SECRET_KEY, or ALLOW_INSECURE_DEV_DEFAULTS=true/,
    );
    expect(loadConfig(webhookDispatcherConfigSpec, { ...KEYS, WEBHOOK_SECRET_KEY: 'A'.repeat(64) }).WEBHOOK_SECRET_KEY).toBe(
      'A'.repeat(64),
    );
  });

  it('reads a key id and previous keys as id:key pairs, naming a bad entry without echoing its key', () => {
    const old = 'B'.repeat(64);
    const config = loadConfig(webhookDispatcherConfigSpec, {
      ...production,
      WEBHOOK_SECRET_KEY: 'A'.repeat(64),
      WEBHOOK_SECRET_KEY_ID: '2026-11',
      WEBHOOK_SECRET_KEYS_PREVIOUS: `1:${old}`,
    });
    expect(config).toMatchObject({ WEBHOOK_SECRET_KEY_ID: '2026-11', WEBHOOK_SECRET_KEYS_PREVIOUS: `1:${old}` });
    expect(() =>
      loadConfig(webhookDispatcherConfigSpec, { ...production, WEBHOOK_SECRET_KEY: 'A'.repeat(64), WEBHOOK_SECRET_KEY_ID: 'a key' }),
    ).toThrow(/WEBHOOK_SECRET_KEY_ID must be 1 to 64/);
    let message = '';
    try {
      loadConfig(webhookDispatcherConfigSpec, {
        ...production,
        WEBHOOK_SECRET_KEY: 'A'.repeat(64),
        WEBHOOK_SECRET_KEYS_PREVIOUS: `1:${old},2:not-a-key-c0ffee`,
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/WEBHOOK_SECRET_KEYS_PREVIOUS entry 2 \(id 2\) must have a key of 32 bytes/);
    expect(message).not.toContain('c0ffee');
    expect(message).not.toContain(old);
  });

  it('requires WEBHOOK_SECRET_KEY in production, and a 32-byte one', () => {
    expect(() => loadConfig(webhookDispatcherConfigSpec, production)).toThrow(/WEBHOOK_SECRET_KEY is required/);
    expect(() => loadConfig(webhookDispatcherConfigSpec, { ...production, WEBHOOK_SECRET_KEY: 'short' })).toThrow(
      /WEBHOOK_SECRET_KEY must be 32 bytes/,
    );
    expect(loadConfig(webhookDispatcherConfigSpec, { ...production, WEBHOOK_SECRET_KEY: 'A'.repeat(64) }).WEBHOOK_SECRET_KEY).toBe(
      'A'.repeat(64),
    );
  });

  it('names a bad retry schedule and an unreadable or non-PEM CA file', () => {
    expect(() => loadConfig(webhookDispatcherConfigSpec, { WEBHOOK_RETRY_SCHEDULE: '1 minute' })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE must be a comma-separated list/,
    );
    expect(() => loadConfig(webhookDispatcherConfigSpec, { WEBHOOK_CA_FILE: '/nonexistent/ca.pem' })).toThrow(
      /WEBHOOK_CA_FILE cannot be read/,
    );
    const notPem = join(mkdtempSync(join(tmpdir(), 'wh-')), 'ca.pem');
    writeFileSync(notPem, 'hello');
    expect(() => loadConfig(webhookDispatcherConfigSpec, { WEBHOOK_CA_FILE: notPem })).toThrow(ConfigError);
  });
});
