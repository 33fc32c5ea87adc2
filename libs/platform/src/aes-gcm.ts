import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bytes `sealAesGcm` adds to the plaintext: IV and authentication tag. */
export const AES_GCM_OVERHEAD = IV_BYTES + TAG_BYTES;

/** Seals a secret at rest with AES-256-GCM (IV ‖ tag ‖ ciphertext); `aad` binds it to its owner. */
export function sealAesGcm(key: Buffer, plaintext: string | Buffer, aad: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([
    typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext),
    cipher.final(),
  ]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** The plaintext of `sealAesGcm`'s output; throws when the key or `aad` differ, or a byte was altered. */
export function openAesGcm(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < AES_GCM_OVERHEAD) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES)).setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, AES_GCM_OVERHEAD));
  return Buffer.concat([decipher.update(sealed.subarray(AES_GCM_OVERHEAD)), decipher.final()]);
}
