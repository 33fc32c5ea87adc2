import { ConfigError, loadConfig } from '@svc/platform';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookDispatcherConfigSpec } from './webhook-dispatcher.config';

const production = { NODE_ENV: 'production', INTERNAL_AUTH_SECRET: 'x'.repeat(40) };

describe('webhook-dispatcher configuration', () => {
  it('has the contract defaults: port 3005, 8 s, the retry schedule, private networks refused', () => {
    const config = loadConfig(webhookDispatcherConfigSpec, {});
    expect(config).toMatchObject({ PORT: 3005, WEBHOOK_TIMEOUT_MS: 8000, WEBHOOK_RETRY_SCHEDULE: '1m,5m,30m,2h,6h,12h', WEBHOOK_ALLOW_PRIVATE_NETWORKS: false, WEBHOOK_CA_FILE: '' });
  });

  it('requires WEBHOOK_SECRET_KEY in production, and a 32-byte one', () => {
    expect(() => loadConfig(webhookDispatcherConfigSpec, production)).toThrow(/WEBHOOK_SECRET_KEY is required/);
    expect(() => loadConfig(webhookDispatcherConfigSpec, { ...production, WEBHOOK_SECRET_KEY: 'short' })).toThrow(/WEBHOOK_SECRET_KEY must be 32 bytes/);
    expect(loadConfig(webhookDispatcherConfigSpec, { ...production, WEBHOOK_SECRET_KEY: 'A'.repeat(64) }).WEBHOOK_SECRET_KEY).toBe('A'.repeat(64));
  });

  it('names a bad retry schedule and an unreadable or non-PEM CA file', () => {
    expect(() => loadConfig(webhookDispatcherConfigSpec, { WEBHOOK_RETRY_SCHEDULE: '1 minute' })).toThrow(/WEBHOOK_RETRY_SCHEDULE must be a comma-separated list/);
    expect(() => loadConfig(webhookDispatcherConfigSpec, { WEBHOOK_CA_FILE: '/nonexistent/ca.pem' })).toThrow(/WEBHOOK_CA_FILE cannot be read/);
    const notPem = join(mkdtempSync(join(tmpdir(), 'wh-')), 'ca.pem');
    writeFileSync(notPem, 'hello');
    expect(() => loadConfig(webhookDispatcherConfigSpec, { WEBHOOK_CA_FILE: notPem })).toThrow(ConfigError);
  });
});
