import { baseConfigSpec, ConfigError, count, loadConfig, optional, port, secret, str } from './config';
import { generateInternalKey, internalAuthConfigSpec, internalKeySpec } from './internal-auth';

const spec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  ...internalKeySpec('chat'),
  PORT: port({ default: 3000 }),
  LIMIT: count({ default: 5 }),
};
const own = generateInternalKey();
/** The chat's own key and the public keys, of this test's own (not the published development ones). */
const KEYS = { CHAT_INTERNAL_KEY: own.seed, INTERNAL_PUBLIC_KEYS: `chat:${own.publicKey}` };

describe('loadConfig', () => {
  it('applies defaults, listening on this machine only', () => {
    const config = loadConfig(spec, KEYS);
    expect(config.PORT).toBe(3000);
    expect(config.LIMIT).toBe(5);
    expect(config.NODE_ENV).toBe('development');
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.ALLOW_INSECURE_DEV_DEFAULTS).toBe(false);
  });

  it.each([
    ['NODE_ENV unset', {}],
    ['NODE_ENV=development', { NODE_ENV: 'development' }],
    ['NODE_ENV=test', { NODE_ENV: 'test' }],
    ['the flag not true', { ALLOW_INSECURE_DEV_DEFAULTS: 'false' }],
  ])('refuses the published development default of a key (%s), naming the variable and the flag', (_case, env: Record<string, string>) => {
    expect(() => loadConfig(spec, env)).toThrow(ConfigError);
    for (const name of ['CHAT_INTERNAL_KEY', 'INTERNAL_PUBLIC_KEYS']) {
      expect(() => loadConfig(spec, env)).toThrow(
        `${name} is not set and its development default is published in the repository: set ${name}, or ALLOW_INSECURE_DEV_DEFAULTS=true on a development machine`,
      );
    }
  });

  it('uses the development default with ALLOW_INSECURE_DEV_DEFAULTS=true, and a key that is set without it', () => {
    const development = loadConfig(spec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true' });
    expect(development.CHAT_INTERNAL_KEY).toBe(spec.CHAT_INTERNAL_KEY.devDefault);
    expect(development.INTERNAL_PUBLIC_KEYS).toBe(spec.INTERNAL_PUBLIC_KEYS.devDefault);
    expect(loadConfig(spec, KEYS).CHAT_INTERNAL_KEY).toBe(own.seed);
  });

  it('lists a refused default together with the other bad variables', () => {
    expect(() => loadConfig(spec, { PORT: 'abc' })).toThrow(/PORT.*CHAT_INTERNAL_KEY is not set/);
  });

  it('checks the keys: a 32-byte seed; caller:key entries of known callers, a caller listed twice during a rotation', () => {
    expect(() => loadConfig(spec, { ...KEYS, CHAT_INTERNAL_KEY: 'a-long-value-that-is-no-ed25519-seed-0123456789' })).toThrow(
      /CHAT_INTERNAL_KEY must be a 32-byte Ed25519 seed in base64/,
    );
    const next = generateInternalKey().publicKey;
    expect(loadConfig(spec, { ...KEYS, INTERNAL_PUBLIC_KEYS: `chat:${own.publicKey}, chat:${next}` }).INTERNAL_PUBLIC_KEYS).toContain(next);
    expect(() => loadConfig(spec, { ...KEYS, INTERNAL_PUBLIC_KEYS: `stranger:${next}` })).toThrow(
      /INTERNAL_PUBLIC_KEYS must list caller:publicKey/,
    );
    expect(() => loadConfig(spec, { ...KEYS, INTERNAL_PUBLIC_KEYS: `chat:${next.slice(4)}` })).toThrow(/not an Ed25519 key/);
  });

  it('fails naming every bad variable', () => {
    expect(() => loadConfig(spec, { PORT: 'abc', LIMIT: '0' })).toThrow(ConfigError);
    expect(() => loadConfig(spec, { PORT: 'abc', LIMIT: '0' })).toThrow(/PORT.*LIMIT|LIMIT.*PORT/);
  });

  it('has no development default for keys in production', () => {
    expect(() => loadConfig(spec, { NODE_ENV: 'production' })).toThrow(
      /CHAT_INTERNAL_KEY is required.*INTERNAL_PUBLIC_KEYS is required|INTERNAL_PUBLIC_KEYS is required.*CHAT_INTERNAL_KEY is required/,
    );
    expect(() => loadConfig(spec, { NODE_ENV: 'production', ...KEYS, CHAT_INTERNAL_KEY: 'short' })).toThrow(
      /CHAT_INTERNAL_KEY must be a 32-byte Ed25519 seed/,
    );
  });

  it('refuses in production every secret this repository published, the template placeholder, and short secrets', () => {
    const withToken = { ...spec, TOKEN: optional(secret(0, { orEmpty: true }), 'A token.'), DATABASE: str({ desc: 'A URL.' }) };
    const production = (env: Record<string, string>) => () => loadConfig(withToken, { NODE_ENV: 'production', ...env });
    const base = { ...KEYS, DATABASE: 'postgres://svc:real@db/svc' };
    expect(production(base)).not.toThrow();
    expect(production({ ...base, CHAT_INTERNAL_KEY: spec.CHAT_INTERNAL_KEY.devDefault as string })).toThrow(
      /CHAT_INTERNAL_KEY is a value published in this repository/,
    );
    for (const published of [
      'compose-development-only-internal-auth-secret',
      '825c7fabe970d711434486fba8fe969156bc5ffa0653a2125453c09baadb3c23',
    ])
      expect(production({ ...base, TOKEN: published })).toThrow(/TOKEN is a value published in this repository/);
    // A development public key among the operator's own: anyone could sign as that caller.
    const development = String(spec.INTERNAL_PUBLIC_KEYS.devDefault).split(' ')[1] as string;
    expect(production({ ...base, INTERNAL_PUBLIC_KEYS: `${KEYS.INTERNAL_PUBLIC_KEYS} ${development}` })).toThrow(
      /INTERNAL_PUBLIC_KEYS lists a development key published in this repository/,
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
  const env = KEYS;

  it('is empty unless set, documented with its meaning, and checks a value that is set', () => {
    expect(optionals.NOTE).toMatchObject({ default: '', desc: 'A note, or none.' });
    const config = loadConfig(optionals, env);
    expect([config.NOTE, config.TOKEN]).toEqual(['', '']);
    expect(loadConfig(optionals, { ...env, NOTE: 'noted' }).NOTE).toBe('noted');
    expect(() => loadConfig(optionals, { ...env, TOKEN: 'short' })).toThrow(/TOKEN must be at least 8/);
  });
});
