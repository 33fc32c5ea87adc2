import { calculateJwkThumbprint } from 'jose';
import { openAesGcm, sealAesGcm } from '@svc/platform';
import { createPrivateKey, hkdfSync, JsonWebKey, KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { DevSigningKeysRepository } from './dev-signing-keys.repository';
import { KeyRing } from './key-ring';
import { generateEd25519, keyFromJwk, publicJwk, SigningKey } from './signing-keys';

/**
 * Seals a development private key with AES-256-GCM under a key derived (HKDF-SHA256) from
 * IDENTITY_ISSUER_INTERNAL_KEY, the app's own secret, bound to its kid. The table then
 * never holds a usable private key on its own.
 */
export class KeySealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'svc-identity-issuer', 'development signing key', 32));
  }

  seal(kid: string, privateKey: KeyObject): Buffer {
    return sealAesGcm(this.key, JSON.stringify(privateKey.export({ format: 'jwk' })), kid);
  }

  /** The private key, or undefined when it was sealed under another secret (or altered). */
  unseal(kid: string, sealed: Buffer): KeyObject | undefined {
    try {
      const text = openAesGcm(this.key, sealed, kid).toString('utf8');
      return createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' });
    } catch {
      return undefined;
    }
  }
}

async function generateKey(): Promise<SigningKey & { privateKey: KeyObject }> {
  const { publicKey, privateKey } = generateEd25519();
  // RFC 7638 thumbprint: a kid that names the key material itself.
  const kid = `dev-${await calculateJwkThumbprint(publicKey.export({ format: 'jwk' }) as Parameters<typeof calculateJwkThumbprint>[0])}`;
  return { kid, publicKey, privateKey };
}

/**
 * Development and tests, when no keys are configured: the key generated on first start and kept
 * in `identity.signing_keys`, so that restarts do not invalidate passes. Every stored key keeps
 * verifying; the newest one this process can unseal signs. If none can be unsealed (the
 * IDENTITY_ISSUER_INTERNAL_KEY changed), a new one is generated and the old ones stay as verifiers.
 */
export async function loadDevelopmentKeyRing(
  repository: Pick<DevSigningKeysRepository, 'locked'>,
  secret: string,
  logger: Logger,
): Promise<KeyRing> {
  const sealer = new KeySealer(secret);
  return repository.locked(async (stored) => {
    const rows = await stored.list();
    const keys: SigningKey[] = rows.map((row) => {
      const privateKey = sealer.unseal(row.kid, row.private_sealed);
      return { ...keyFromJwk(row.public_jwk, 'table identity.signing_keys'), ...(privateKey ? { privateKey } : {}) };
    });
    const usable = keys.find((key) => key.privateKey !== undefined);
    if (usable) return new KeyRing(keys, usable.kid);
    const generated = await generateKey();
    await stored.add({
      kid: generated.kid,
      public_jwk: { ...publicJwk(generated) },
      private_sealed: sealer.seal(generated.kid, generated.privateKey),
    });
    if (rows.length > 0)
      logger.warn(
        { kid: generated.kid },
        'stored development signing keys were sealed under another IDENTITY_ISSUER_INTERNAL_KEY; generated a new one',
      );
    else logger.info({ kid: generated.kid }, 'generated the development signing key (set IDENTITY_SIGNING_KEYS in production)');
    return new KeyRing([generated, ...keys], generated.kid);
  });
}
