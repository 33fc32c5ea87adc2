/** The keys of the SecretBox as its settings write them: read by the configuration and by the box. */

/** The key id of values sealed before key ids existed, and of WEBHOOK_SECRET_KEY when WEBHOOK_SECRET_KEY_ID is not set. */
export const LEGACY_KEY_ID = '1';
/** A key id: short and printable, so it can be read back from the sealed bytes (and by SQL). */
export const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A 32-byte key written as 64 hex characters or as base64 / base64url; undefined when it is neither. */
export function decodeAesKey(text: string): Buffer | undefined {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined;
  return key?.length === 32 ? key : undefined;
}

/**
 * `id:key` pairs separated by commas (WEBHOOK_SECRET_KEYS_PREVIOUS), each key as `decodeAesKey`
 * reads it. Throws naming the bad entry by its position, never echoing a key.
 */
export function parseKeyList(text: string): Map<string, string> {
  const keys = new Map<string, string>();
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const id = colon === -1 ? '' : entry.slice(0, colon);
    const key = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) throw new Error(`entry ${index + 1} must be id:key with an id of 1 to 64 letters, digits, '.', '_' or '-'`);
    if (!decodeAesKey(key)) throw new Error(`entry ${index + 1} (id ${id}) must have a key of 32 bytes (64 hex characters or base64)`);
    if (keys.has(id)) throw new Error(`key id ${id} is listed twice`);
    keys.set(id, key);
  });
  return keys;
}
