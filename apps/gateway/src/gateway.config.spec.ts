import { loadConfig } from '@svc/platform';
import { gatewayConfigSpec } from './gateway.config';

describe('gateway configuration', () => {
  it('defaults to the contract: 120 writes a minute, 3,000 an hour, key cache within 5 s', () => {
    const config = loadConfig(gatewayConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true' });
    expect(config.WRITE_LIMIT_PER_MINUTE).toBe(120);
    expect(config.WRITE_LIMIT_PER_HOUR).toBe(3000);
    expect(config.WRITE_LIMIT_MINUTE_WINDOW_MS).toBe(60_000);
    expect(config.WRITE_LIMIT_HOUR_WINDOW_MS).toBe(3_600_000);
    expect(config.AUTH_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
    expect(config.PORT).toBe(3000);
  });

  it('refuses a key cache longer than 5 s', () => {
    expect(() => loadConfig(gatewayConfigSpec, { AUTH_CACHE_TTL_MS: '6000' })).toThrow(/AUTH_CACHE_TTL_MS/);
  });
});
