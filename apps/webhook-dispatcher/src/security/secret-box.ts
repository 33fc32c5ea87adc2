import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A 32-byte key written as 64 hex characters or as base64 / base64url; undefined when it is neither. */
export function decodeAesKey(text: string): Buffer | undefined {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  return key?.length === 32 ? key : undefined;
}

/**
 * Webhook signing secrets at rest: AES-256-GCM. Sealed = version (1 byte) ‖ IV (12) ‖ tag (16) ‖
 * ciphertext. The account id is authenticated data, so a sealed secret copied to another
 * account's row does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyText: string) {
    const key = decodeAesKey(keyText);
    if (!key) throw new Error('the key must be 32 bytes (64 hex characters or base64)');
    this.key = key;
  }

  seal(plaintext: string, accountId: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(accountId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** Throws when the value was not sealed with this key for this account, or was altered. */
  open(sealed: Buffer, accountId: string): string {
    if (sealed[0] !== VERSION || sealed.length < 1 + IV_BYTES + TAG_BYTES) throw new Error('not a sealed secret of a known version');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(accountId, 'utf8')).setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
