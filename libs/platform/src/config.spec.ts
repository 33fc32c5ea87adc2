import { baseConfigSpec, ConfigError, count, loadConfig, optional, port, secret, str } from './config';
import { internalAuthConfigSpec } from './internal-auth';

const spec = { ...baseConfigSpec, ...internalAuthConfigSpec, PORT: port({ default: 3000 }), LIMIT: count({ default: 5 }) };

describe('loadConfig', () => {
  const SECRET = 'a-real-secret-of-forty-characters-0123456';

  it('applies defaults, listening on this machine only', () => {
    const config = loadConfig(spec, { INTERNAL_AUTH_SECRET: SECRET });
    expect(config.PORT).toBe(3000);
    expect(config.LIMIT).toBe(5);
    expect(config.NODE_ENV).toBe('development');
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.INTERNAL_AUTH_SECRET_PREVIOUS).toBe('');
    expect(config.ALLOW_INSECURE_DEV_DEFAULTS).toBe(false);
  });

  it.each([
    ['NODE_ENV unset', {}],
    ['NODE_ENV=development', { NODE_ENV: 'development' }],
    ['NODE_ENV=test', { NODE_ENV: 'test' }],
    ['the flag not true', { ALLOW_INSECURE_DEV_DEFAULTS: 'false' }],
  ])(
    'refuses the published development default of a secret (%s), naming the variable and the flag',
    (_case, env: Record<string, string>) => {
      expect(() => loadConfig(spec, env)).toThrow(ConfigError);
      expect(() => loadConfig(spec, env)).toThrow(
        'INTERNAL_AUTH_SECRET is not set and its development default is published in the repository: set INTERNAL_AUTH_SECRET, or ALLOW_INSECURE_DEV_DEFAULTS=true on a development machine',
      );
    },
  );

  it('uses the development default with ALLOW_INSECURE_DEV_DEFAULTS=true, and a secret that is set without it', () => {
    expect(loadConfig(spec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true' }).INTERNAL_AUTH_SECRET).toBe(
      internalAuthConfigSpec.INTERNAL_AUTH_SECRET.devDefault,
    );
    expect(loadConfig(spec, { INTERNAL_AUTH_SECRET: SECRET }).INTERNAL_AUTH_SECRET).toBe(SECRET);
  });

  it('lists a refused default together with the other bad variables', () => {
    expect(() => loadConfig(spec, { PORT: 'abc' })).toThrow(/PORT.*INTERNAL_AUTH_SECRET is not set/);
  });

  it('takes an optional previous secret: empty, or 32+ characters', () => {
    expect(loadConfig(spec, { INTERNAL_AUTH_SECRET: SECRET, INTERNAL_AUTH_SECRET_PREVIOUS: '' }).INTERNAL_AUTH_SECRET_PREVIOUS).toBe('');
    expect(
      loadConfig(spec, { INTERNAL_AUTH_SECRET: SECRET, INTERNAL_AUTH_SECRET_PREVIOUS: SECRET.toUpperCase() }).INTERNAL_AUTH_SECRET_PREVIOUS,
    ).toBe(SECRET.toUpperCase());
    expect(() => loadConfig(spec, { INTERNAL_AUTH_SECRET: SECRET, INTERNAL_AUTH_SECRET_PREVIOUS: 'short' })).toThrow(
      /INTERNAL_AUTH_SECRET_PREVIOUS must be at least 32/,
    );
  });

  it('fails naming every bad variable', () => {
    expect(() => loadConfig(spec, { PORT: 'abc', LIMIT: '0' })).toThrow(ConfigError);
    expect(() => loadConfig(spec, { PORT: 'abc', LIMIT: '0' })).toThrow(/PORT.*LIMIT|LIMIT.*PORT/);
  });

  it('has no development default for secrets in production', () => {
    expect(() => loadConfig(spec, { NODE_ENV: 'production' })).toThrow(/INTERNAL_AUTH_SECRET is required/);
    expect(() => loadConfig(spec, { NODE_ENV: 'production', INTERNAL_AUTH_SECRET: 'short' })).toThrow(
      /INTERNAL_AUTH_SECRET must be at least 32/,
    );
  });

  it('refuses in production every secret this repository published, the template placeholder, and short secrets', () => {
    const withToken = { ...spec, TOKEN: optional(secret(0, { orEmpty: true }), 'A token.'), DATABASE: str({ desc: 'A URL.' }) };
    const production = (env: Record<string, string>) => () => loadConfig(withToken, { NODE_ENV: 'production', ...env });
    const base = { INTERNAL_AUTH_SECRET: SECRET, DATABASE: 'postgres://svc:real@db/svc' };
    expect(production(base)).not.toThrow();
    for (const published of ['development-only-internal-secret-0123456789', 'compose-development-only-internal-auth-secret'])
      expect(production({ ...base, INTERNAL_AUTH_SECRET: published })).toThrow(
        /INTERNAL_AUTH_SECRET is a value published in this repository/,
      );
    expect(production({ ...base, TOKEN: 'change-me' })).toThrow(/TOKEN still holds the template's "change-me"/);
    expect(production({ ...base, DATABASE: 'postgres://svc:change-me@db/svc' })).toThrow(/DATABASE still holds/);
    expect(production({ ...base, TOKEN: 'é'.repeat(15) })).toThrow(/TOKEN must be at least 32 bytes in production/);
    expect(production({ ...base, TOKEN: 'é'.repeat(16) })).not.toThrow();
    // Development keeps working with short optional values (a local WhatsApp fake's token).
    expect(() => loadConfig(withToken, { ...base, TOKEN: 'dev' })).not.toThrow();
  });
});

describe('optional', () => {
  const optionals = { ...spec, NOTE: optional(str, 'A note, or none.'), TOKEN: optional(secret(8), 'A token, or none.') };
  const env = { INTERNAL_AUTH_SECRET: 'a-real-secret-of-forty-characters-0123456' };

  it('is empty unless set, documented with its meaning, and checks a value that is set', () => {
    expect(optionals.NOTE).toMatchObject({ default: '', desc: 'A note, or none.' });
    const config = loadConfig(optionals, env);
    expect([config.NOTE, config.TOKEN]).toEqual(['', '']);
    expect(loadConfig(optionals, { ...env, NOTE: 'noted' }).NOTE).toBe('noted');
    expect(() => loadConfig(optionals, { ...env, TOKEN: 'short' })).toThrow(/TOKEN must be at least 8/);
  });
});
