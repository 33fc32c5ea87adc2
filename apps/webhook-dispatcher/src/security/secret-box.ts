import { Inject, Injectable } from '@nestjs/common';
import { AES_GCM_OVERHEAD, APP_CONFIG, openAesGcm, sealAesGcm } from '@svc/platform';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';

/** Sealed before key ids existed: version ‖ IV ‖ tag ‖ ciphertext (`sealAesGcm`), under the key with LEGACY_KEY_ID. */
const LEGACY_VERSION = 1;
/** With a key id: version ‖ id length (1) ‖ id (ASCII) ‖ IV ‖ tag ‖ ciphertext. */
const KEYED_VERSION = 2;

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

export interface SecretBoxKeys {
  /** The key that seals new values (WEBHOOK_SECRET_KEY). */
  current: string;
  /** Its id, recorded in what it seals (WEBHOOK_SECRET_KEY_ID); LEGACY_KEY_ID by default. */
  currentId?: string;
  /** Keys that only open, by id (WEBHOOK_SECRET_KEYS_PREVIOUS). */
  previous?: ReadonlyMap<string, string>;
}

/**
 * Webhook signing secrets at rest: AES-256-GCM, the account id as authenticated data (a sealed
 * secret copied to another account's row does not open). Each sealed value records the id of the
 * key that sealed it, so that the key can be rotated: new values are sealed with the current key,
 * older ones open with the previous key of their id. Values sealed before key ids existed open
 * with the key of id LEGACY_KEY_ID.
 */
export class SecretBox {
  private readonly currentId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(keys: SecretBoxKeys | string) {
    const {
      current,
      currentId = LEGACY_KEY_ID,
      previous = new Map<string, string>(),
    } = typeof keys === 'string' ? { current: keys } : keys;
    if (!KEY_ID.test(currentId)) throw new Error('the key id must be 1 to 64 letters, digits, ".", "_" or "-"');
    for (const [id, text] of [...previous, [currentId, current] as const]) {
      const key = decodeAesKey(text);
      if (!key) throw new Error(`the key of id ${id} must be 32 bytes (64 hex characters or base64)`);
      this.keys.set(id, key);
    }
    this.currentId = currentId;
  }

  seal(plaintext: string, accountId: string): Buffer {
    const id = Buffer.from(this.currentId, 'ascii');
    return Buffer.concat([
      Buffer.of(KEYED_VERSION, id.length),
      id,
      sealAesGcm(this.keys.get(this.currentId) as Buffer, plaintext, accountId),
    ]);
  }

  /** The id of the key that sealed `sealed` (LEGACY_KEY_ID for values without one). */
  static keyIdOf(sealed: Buffer): string {
    if (sealed[0] === LEGACY_VERSION) return LEGACY_KEY_ID;
    if (sealed[0] === KEYED_VERSION && sealed.length > 2 && sealed.length >= 2 + (sealed[1] as number))
      return sealed.subarray(2, 2 + (sealed[1] as number)).toString('ascii');
    throw new Error('not a sealed secret of a known version');
  }

  /** Throws when the value was not sealed with a key of this box for this account, or was altered. */
  open(sealed: Buffer, accountId: string): string {
    const id = SecretBox.keyIdOf(sealed);
    const key = this.keys.get(id);
    if (!key) throw new Error(`sealed with key id ${id}, which is neither WEBHOOK_SECRET_KEY_ID nor in WEBHOOK_SECRET_KEYS_PREVIOUS`);
    const start = sealed[0] === LEGACY_VERSION ? 1 : 2 + id.length;
    if (sealed.length < start + AES_GCM_OVERHEAD) throw new Error('not a sealed secret of a known version');
    return openAesGcm(key, sealed.subarray(start), accountId).toString('utf8');
  }
}

/** The dispatcher's box: WEBHOOK_SECRET_KEY seals; it and WEBHOOK_SECRET_KEYS_PREVIOUS open. */
@Injectable()
export class ConfiguredSecretBox extends SecretBox {
  constructor(@Inject(APP_CONFIG) config: WebhookDispatcherConfig) {
    super({
      current: config.WEBHOOK_SECRET_KEY,
      currentId: config.WEBHOOK_SECRET_KEY_ID,
      previous: parseKeyList(config.WEBHOOK_SECRET_KEYS_PREVIOUS),
    });
  }
}
