import { Inject, Injectable } from '@nestjs/common';
import { AES_GCM_OVERHEAD, openAesGcm, sealAesGcm } from '@svc/platform';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { decodeAesKey, KEY_ID, LEGACY_KEY_ID, parseKeyList } from './secret-keys';
import { WEBHOOK_DISPATCHER_CONFIG } from '../webhook-dispatcher.config';

/** Sealed before key ids existed: version ‖ IV ‖ tag ‖ ciphertext (`sealAesGcm`), under the key with LEGACY_KEY_ID. */
const LEGACY_VERSION = 1;
/** With a key id: version ‖ id length (1) ‖ id (ASCII) ‖ IV ‖ tag ‖ ciphertext. */
const KEYED_VERSION = 2;

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
  constructor(@Inject(WEBHOOK_DISPATCHER_CONFIG) config: WebhookDispatcherConfig) {
    super({
      current: config.WEBHOOK_SECRET_KEY,
      currentId: config.WEBHOOK_SECRET_KEY_ID,
      previous: parseKeyList(config.WEBHOOK_SECRET_KEYS_PREVIOUS),
    });
  }
}
