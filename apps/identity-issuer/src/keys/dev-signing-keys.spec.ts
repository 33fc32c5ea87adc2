import { createLogger } from '@svc/platform';
import { DevSigningKeysRepository, StoredSigningKey } from './dev-signing-keys.repository';
import { KeySealer, loadDevelopmentKeyRing } from './dev-signing-keys';

const SECRET = 'development-only-internal-secret-0123456789';
const logger = createLogger('test', 'silent');

/** The table, in memory. */
function memoryRepository(): Pick<DevSigningKeysRepository, 'locked'> & { rows: StoredSigningKey[] } {
  const rows: StoredSigningKey[] = [];
  return {
    rows,
    locked: (work) =>
      work({
        list: async () => [...rows].reverse(),
        add: async (key) => {
          rows.push(key);
        },
      }),
  };
}

describe('development signing key', () => {
  it('is generated once, stored sealed, and the same key signs after a restart', async () => {
    const repository = memoryRepository();
    const first = await loadDevelopmentKeyRing(repository, SECRET, logger);
    const second = await loadDevelopmentKeyRing(repository, SECRET, logger);
    expect(repository.rows).toHaveLength(1);
    expect(first.signer.kid).toMatch(/^dev-[A-Za-z0-9_-]{43}$/);
    expect(second.signer.kid).toBe(first.signer.kid);
    const d = first.signer.privateKey.export({ format: 'jwk' }).d as string;
    const stored = repository.rows[0] as StoredSigningKey;
    expect(JSON.stringify(stored.public_jwk)).not.toContain(d);
    expect(stored.private_sealed.toString('latin1')).not.toContain(d);
    expect(stored.private_sealed.toString('base64url')).not.toContain(d);
  });

  it('under another IDENTITY_ISSUER_INTERNAL_KEY: a new key signs and the old one still verifies', async () => {
    const repository = memoryRepository();
    const before = await loadDevelopmentKeyRing(repository, SECRET, logger);
    const after = await loadDevelopmentKeyRing(repository, `${SECRET}-changed`, logger);
    expect(after.signer.kid).not.toBe(before.signer.kid);
    expect(after.verificationKey(before.signer.kid)).toBeDefined();
    expect(after.jwks().keys.map((k) => k.kid)).toEqual([after.signer.kid, before.signer.kid]);
  });

  it('a sealed key opens only with the same secret and kid', async () => {
    const ring = await loadDevelopmentKeyRing(memoryRepository(), SECRET, logger);
    const sealed = new KeySealer(SECRET).seal('k1', ring.signer.privateKey);
    expect(new KeySealer(SECRET).unseal('k1', sealed)?.equals(ring.signer.privateKey)).toBe(true);
    expect(new KeySealer(`${SECRET}-x`).unseal('k1', sealed)).toBeUndefined();
    expect(new KeySealer(SECRET).unseal('k2', sealed)).toBeUndefined();
  });
});
