import { loadConfig, trustProxyOption } from '@svc/platform';
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

  it.each([
    ['', false],
    ['1', 1],
    ['loopback', 'loopback'],
    ['10.0.0.0/8, 172.16.0.0/12,fd00::/8', '10.0.0.0/8,172.16.0.0/12,fd00::/8'],
    ['uniquelocal,203.0.113.7', 'uniquelocal,203.0.113.7'],
  ])('reads TRUST_PROXY %j as Fastify trustProxy %j', (setting, expected) => {
    expect(
      trustProxyOption(loadConfig(gatewayConfigSpec, { TRUST_PROXY: setting, ALLOW_INSECURE_DEV_DEFAULTS: 'true' }).TRUST_PROXY),
    ).toEqual(expected);
  });

  it.each(['true', '*', '10.0.0.0/33', 'example.com', '10.0.0.1/8/1'])(
    'refuses TRUST_PROXY=%s, naming it (trusting everyone lets a client choose its address)',
    (setting) => {
      expect(() => loadConfig(gatewayConfigSpec, { TRUST_PROXY: setting })).toThrow(/TRUST_PROXY/);
    },
  );

  it('defaults to trusting no proxy', () => {
    const config = loadConfig(gatewayConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true' });
    expect(trustProxyOption(config.TRUST_PROXY)).toBe(false);
  });
});
