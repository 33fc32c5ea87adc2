import { baseConfigSpec, ConfigError, count, loadConfig, port } from './config';
import { internalAuthConfigSpec } from './internal-auth';

const spec = { ...baseConfigSpec, ...internalAuthConfigSpec, PORT: port({ default: 3000 }), LIMIT: count({ default: 5 }) };

describe('loadConfig', () => {
  it('applies defaults', () => {
    const config = loadConfig(spec, {});
    expect(config.PORT).toBe(3000);
    expect(config.LIMIT).toBe(5);
    expect(config.NODE_ENV).toBe('development');
  });

  it('fails naming every bad variable', () => {
    expect(() => loadConfig(spec, { PORT: 'abc', LIMIT: '0' })).toThrow(ConfigError);
    expect(() => loadConfig(spec, { PORT: 'abc', LIMIT: '0' })).toThrow(/PORT.*LIMIT|LIMIT.*PORT/);
  });

  it('has no development default for secrets in production', () => {
    expect(() => loadConfig(spec, { NODE_ENV: 'production' })).toThrow(/INTERNAL_AUTH_SECRET is required/);
    expect(() => loadConfig(spec, { NODE_ENV: 'production', INTERNAL_AUTH_SECRET: 'short' })).toThrow(/INTERNAL_AUTH_SECRET must be at least 32/);
  });
});
