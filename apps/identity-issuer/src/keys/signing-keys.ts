import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** An Ed25519 key of the pass issuer, known by its `kid`. */
export interface SigningKey {
  kid: string;
  publicKey: KeyObject;
  /** Absent for a retired key kept only so that the passes it signed still verify. */
  privateKey?: KeyObject;
}

/** What the JWKS serves for a key: the public half only. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/**
 * A new Ed25519 key pair, as keys of their own. The private key is encoded (PKCS #8) inside the
 * generation job and imported again: exporting a key that `generateKeyPairSync` returned can
 * deadlock Node 20 if a garbage collection destroys the finished generation job during the export
 * (its destructor waits for the lock the export holds; seen hanging a test run).
 */
export function generateEd25519(): { publicKey: KeyObject; privateKey: KeyObject } {
  const { privateKey: pkcs8 } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const privateKey = createPrivateKey(pkcs8);
  return { publicKey: createPublicKey(privateKey), privateKey };
}

export function publicJwk(key: SigningKey): PublicJwk {
  const { x } = key.publicKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: x as string, kid: key.kid, alg: 'EdDSA', use: 'sig' };
}

/** One JWK (public, or private with `d`) → a key; messages name the kid and source, never material. */
export function keyFromJwk(value: unknown, source: string): SigningKey {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${source} holds something that is not a JWK object`);
  const jwk = value as Record<string, unknown>;
  const kid = jwk['kid'];
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 200)
    throw new Error(`${source} holds a JWK without a "kid" of 1 to 200 characters`);
  const where = `key "${kid}" of ${source}`;
  if (jwk['kty'] !== 'OKP' || jwk['crv'] !== 'Ed25519' || typeof jwk['x'] !== 'string')
    throw new Error(`${where} is not an Ed25519 JWK (kty "OKP", crv "Ed25519", x)`);
  if (jwk['alg'] !== undefined && jwk['alg'] !== 'EdDSA') throw new Error(`${where} has alg other than "EdDSA"`);
  if (jwk['use'] !== undefined && jwk['use'] !== 'sig') throw new Error(`${where} has use other than "sig"`);
  const material = { kty: 'OKP', crv: 'Ed25519', x: jwk['x'] };
  const unreadable = () => new Error(`${where} cannot be read as an Ed25519 key`);
  if (jwk['d'] === undefined) return { kid, publicKey: attempt(() => createPublicKey({ key: material, format: 'jwk' }), unreadable) };
  const privateKey = attempt(() => createPrivateKey({ key: { ...material, d: String(jwk['d']) }, format: 'jwk' }), unreadable);
  const publicKey = createPublicKey(privateKey);
  // Node derives the public key from `d` and ignores `x`: a mismatch would publish a key that verifies nothing.
  if (publicKey.export({ format: 'jwk' }).x !== jwk['x']) throw new Error(`${where}: its "x" is not the public half of its "d"`);
  return { kid, publicKey, privateKey };
}

/** Node's key errors may describe the input; ours name only the kid. */
function attempt<T>(work: () => T, failure: () => Error): T {
  try {
    return work();
  } catch {
    throw failure();
  }
}

/** One JWK, an array of JWKs or a JWK Set (`{"keys":[…]}`). */
function keysFromJson(text: string, source: string): SigningKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text, which holds private keys.
    throw new Error(`${source} is not valid JSON`);
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  const list = Array.isArray(parsed) ? parsed : Array.isArray(keys) ? keys : [parsed];
  return list.map((jwk) => keyFromJwk(jwk, source));
}

function keysFromPath(path: string): SigningKey[] {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new Error(`names no readable file or directory (${path})`);
  }
  if (!isDirectory) return keysFromJson(readFileSync(path, 'utf8'), path);
  // A mounted Kubernetes Secret: one file per key; its `..data` links and hidden entries are skipped.
  const files = readdirSync(path)
    .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
    .sort();
  return files.flatMap((name) => keysFromJson(readFileSync(join(path, name), 'utf8'), join(path, name)));
}

/**
 * The configured keys: inline JSON (starts with `[` or `{`) or the path of a file or directory of
 * `*.json` files. At least one key, kids unique. Which one signs is decided by the key ring.
 */
export function readSigningKeys(value: string): SigningKey[] {
  const text = value.trim();
  const keys = text.startsWith('[') || text.startsWith('{') ? keysFromJson(text, 'the value') : text ? keysFromPath(text) : [];
  if (keys.length === 0) throw new Error('must hold at least one Ed25519 JWK');
  const seen = new Set<string>();
  for (const { kid } of keys) {
    if (seen.has(kid)) throw new Error(`holds two keys with kid "${kid}"`);
    seen.add(kid);
  }
  return keys;
}
