import { ConfigError, generateInternalKey, loadConfig } from '@svc/platform';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityIssuerConfigSpec } from './identity-issuer.config';
import { configuredKeyRing } from './keys/key-ring';
import { generateEd25519 } from './keys/signing-keys';

const PRODUCTION = {
  NODE_ENV: 'production',
  IDENTITY_ISSUER_INTERNAL_KEY: generateInternalKey().seed,
  INTERNAL_PUBLIC_KEYS: `chat:${generateInternalKey().publicKey}`,
  LOG_PATH_SECRET: 'p'.repeat(40),
};

function privateJwk(kid: string): Record<string, string> {
  const { privateKey } = generateEd25519();
  return { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid, alg: 'EdDSA', use: 'sig' };
}

function publicOnly(jwk: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(jwk).filter(([name]) => name !== 'd'));
}

const load = (env: Record<string, string>) => loadConfig(identityIssuerConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true', ...env });
const failure = (env: Record<string, string>): string => {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};

describe('identity-issuer configuration', () => {
  it('listens on 3002, names the chat as audience, and has no keys in development (one is generated)', () => {
    const config = load({});
    expect(config.PORT).toBe(3002);
    expect(config.IDENTITY_TOKEN_AUDIENCE).toBe('svc-chat');
    expect(config.IDENTITY_TOKEN_ISSUER).toBe('svc-identity-issuer');
    expect(config.CONTACTS_API_URL).toBe('http://127.0.0.1:3101');
    expect(config.IDENTITY_SIGNING_KEYS).toEqual([]);
  });

  it('refuses in production the development key committed for the local cluster, naming it', () => {
    const committed = join(__dirname, '../../../k8s/overlays/dev/identity-signing-key.dev-only.json');
    expect(failure({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: committed })).toMatch(
      /IDENTITY_SIGNING_KEYS holds key "dev-only", a development key published in this repository/,
    );
    // Development (the local cluster) takes it.
    expect(load({ IDENTITY_SIGNING_KEYS: committed }).IDENTITY_SIGNING_KEYS.map((key) => key.kid)).toEqual(['dev-only']);
    expect(load({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: JSON.stringify(privateJwk('own')) }).IDENTITY_SIGNING_KEYS).toHaveLength(1);
  });

  it('refuses to start in production without IDENTITY_SIGNING_KEYS, naming it', () => {
    expect(failure(PRODUCTION)).toMatch(/IDENTITY_SIGNING_KEYS is required/);
    expect(failure({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: '[]' })).toMatch(/IDENTITY_SIGNING_KEYS must hold at least one Ed25519 JWK/);
  });

  it('reads inline JSON: an array, a JWK Set or one JWK, private or public-only', () => {
    const a = privateJwk('a');
    const b = privateJwk('b');
    for (const value of [[a, publicOnly(b)], { keys: [a, publicOnly(b)] }]) {
      const keys = load({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: JSON.stringify(value) }).IDENTITY_SIGNING_KEYS;
      expect(keys.map((k) => [k.kid, k.privateKey !== undefined])).toEqual([
        ['a', true],
        ['b', false],
      ]);
    }
    expect(load({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: JSON.stringify(a) }).IDENTITY_SIGNING_KEYS.map((k) => k.kid)).toEqual(['a']);
  });

  describe('from files (a mounted Kubernetes Secret)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'identity-keys-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads a file, or every *.json file of a directory in name order, skipping hidden entries', () => {
      const file = join(dir, 'one.json');
      writeFileSync(file, JSON.stringify([privateJwk('from-file')]));
      expect(load({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: file }).IDENTITY_SIGNING_KEYS.map((k) => k.kid)).toEqual(['from-file']);

      const mounted = join(dir, 'mounted');
      mkdirSync(join(mounted, '..data'), { recursive: true });
      writeFileSync(join(mounted, '2026-11.json'), JSON.stringify(privateJwk('2026-11')));
      writeFileSync(join(mounted, '2026-10.json'), JSON.stringify(publicOnly(privateJwk('2026-10'))));
      writeFileSync(join(mounted, 'README'), 'not a key');
      writeFileSync(join(mounted, '..data', 'x.json'), 'not read');
      expect(load({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: mounted }).IDENTITY_SIGNING_KEYS.map((k) => k.kid)).toEqual([
        '2026-10',
        '2026-11',
      ]);
    });

    it('names a path that does not exist', () => {
      expect(failure({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: join(dir, 'missing') })).toMatch(
        /IDENTITY_SIGNING_KEYS names no readable file or directory/,
      );
    });
  });

  it.each([
    ['text that is not JSON, without echoing it', '{"kty":"OKP","d":"c2VjcmV0LWtleS1tYXRlcmlhbA"', /is not valid JSON/],
    ['a JWK without kid', JSON.stringify([{ ...privateJwk('x'), kid: undefined }]), /without a "kid"/],
    [
      'a key of another type',
      JSON.stringify([{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', kid: 'ec' }]),
      /key "ec" .* is not an Ed25519 JWK/,
    ],
    ['an alg other than EdDSA', JSON.stringify([{ ...privateJwk('rs'), alg: 'RS256' }]), /key "rs" .* alg other than "EdDSA"/],
    ['two keys with one kid', JSON.stringify([privateJwk('same'), privateJwk('same')]), /two keys with kid "same"/],
    [
      'an x that is not the public half of d',
      JSON.stringify([{ ...privateJwk('mixed'), x: privateJwk('y').x }]),
      /key "mixed" .* "x" is not the public half of its "d"/,
    ],
    [
      'a d that is not key material',
      JSON.stringify([{ ...privateJwk('short'), d: 'AAAA' }]),
      /key "short" .* cannot be read as an Ed25519 key/,
    ],
  ])('refuses %s, naming the variable and never the key material', (_label, value, message) => {
    const text = failure({ ...PRODUCTION, IDENTITY_SIGNING_KEYS: value });
    expect(text).toMatch(/IDENTITY_SIGNING_KEYS/);
    expect(text).toMatch(message);
    for (const d of value.match(/"d":"([^"]+)"/g) ?? []) expect(text).not.toContain(d.slice(5, -1));
  });

  describe('which key signs', () => {
    const keys = () =>
      load({
        ...PRODUCTION,
        IDENTITY_SIGNING_KEYS: JSON.stringify([privateJwk('first'), privateJwk('second'), publicOnly(privateJwk('retired'))]),
      }).IDENTITY_SIGNING_KEYS;

    it('the first key, or the one IDENTITY_ACTIVE_KID names; every key verifies', () => {
      expect(configuredKeyRing(keys(), '').signer.kid).toBe('first');
      const ring = configuredKeyRing(keys(), 'second');
      expect(ring.signer.kid).toBe('second');
      expect(ring.jwks().keys.map((k) => k.kid)).toEqual(['first', 'second', 'retired']);
    });

    it('refuses an active kid that is not listed, or that has no private part', () => {
      expect(() => configuredKeyRing(keys(), 'nope')).toThrow(/IDENTITY_ACTIVE_KID.*"nope" is not among the keys/);
      expect(() => configuredKeyRing(keys(), 'retired')).toThrow(/IDENTITY_ACTIVE_KID.*"retired" has no private part/);
    });

    it('publishes public halves only', () => {
      const published = configuredKeyRing(keys(), '').jwks();
      for (const jwk of published.keys) expect(Object.keys(jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    });
  });
});
