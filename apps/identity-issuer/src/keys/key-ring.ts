import type { KeyObject } from 'node:crypto';
import { PublicJwk, publicJwk, SigningKey } from './signing-keys';

/**
 * The issuer's keys: every listed key verifies (rotation: a retired key stays listed until the
 * passes it signed have expired), exactly one signs.
 */
export class KeyRing {
  readonly signer: { kid: string; privateKey: KeyObject };
  private readonly verifiers: Map<string, KeyObject>;
  private readonly published: { readonly keys: readonly PublicJwk[] };

  constructor(keys: readonly SigningKey[], activeKid: string) {
    const active = keys.find((key) => key.kid === activeKid);
    if (!active) throw new Error(`the signing key "${activeKid}" is not among the keys`);
    if (!active.privateKey) throw new Error(`the signing key "${activeKid}" has no private part ("d")`);
    this.signer = { kid: active.kid, privateKey: active.privateKey };
    this.verifiers = new Map(keys.map((key) => [key.kid, key.publicKey]));
    this.published = Object.freeze({ keys: keys.map((key) => Object.freeze(publicJwk(key))) });
  }

  /** The public key a pass with this `kid` must verify against, if the kid is listed. */
  verificationKey(kid: string | undefined): KeyObject | undefined {
    return kid === undefined ? undefined : this.verifiers.get(kid);
  }

  /** The JWK Set of every verification key (public halves only). */
  jwks(): { readonly keys: readonly PublicJwk[] } {
    return this.published;
  }
}

/** The key ring from configuration: IDENTITY_ACTIVE_KID signs, or else the first key listed. */
export function configuredKeyRing(keys: readonly SigningKey[], activeKid: string): KeyRing {
  const kid = activeKid || (keys[0] as SigningKey).kid;
  try {
    return new KeyRing(keys, kid);
  } catch (err) {
    throw new Error(`Invalid configuration: IDENTITY_ACTIVE_KID / IDENTITY_SIGNING_KEYS: ${(err as Error).message}`);
  }
}
