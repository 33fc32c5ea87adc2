import { createCipheriv, randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';
import { decodeAesKey, LEGACY_KEY_ID, parseKeyList } from './secret-keys';

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox(randomBytes(32).toString('base64'));
  const account = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const secret = 'whsec_jB3hBHYfTaO-KhEj88VB1XSSEy9y_0Dp8swUk9CKA8E';

  it('opens what it sealed, and the sealed bytes do not contain the secret', () => {
    const sealed = box.seal(secret, account);
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(sealed.includes(Buffer.from(secret.slice(6)))).toBe(false);
    expect(box.open(sealed, account)).toBe(secret);
  });

  it('seals the same secret differently each time (fresh IV)', () => {
    expect(box.seal(secret, account).equals(box.seal(secret, account))).toBe(false);
  });

  it('refuses an altered value, another account, and another key', () => {
    const sealed = box.seal(secret, account);
    const altered = Buffer.from(sealed);
    altered[altered.length - 1] ^= 1;
    expect(() => box.open(altered, account)).toThrow();
    expect(() => box.open(sealed, '7c9e6679-7425-40de-944b-e07fc1f90ae7')).toThrow();
    expect(() => new SecretBox(randomBytes(32).toString('hex')).open(sealed, account)).toThrow();
  });

  it.each([
    ['64 hex characters', randomBytes(32).toString('hex'), true],
    ['base64', randomBytes(32).toString('base64'), true],
    ['base64url', randomBytes(32).toString('base64url'), true],
    ['16 bytes', randomBytes(16).toString('hex'), false],
    ['a passphrase', 'correct horse battery staple', false],
    ['empty', '', false],
  ])('reads a key given as %s: %s', (_case, text, valid) => {
    expect(decodeAesKey(text)?.length === 32).toBe(valid);
  });
});

describe('SecretBox key rotation', () => {
  const account = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const secret = 'whsec_jB3hBHYfTaO-KhEj88VB1XSSEy9y_0Dp8swUk9CKA8E';
  const [k1, k2, k3] = [randomBytes(32).toString('hex'), randomBytes(32).toString('base64'), randomBytes(32).toString('base64url')];

  /** What the code before key ids wrote: version 1 ‖ IV ‖ tag ‖ ciphertext, no key id. */
  function sealLegacy(key: string, plaintext: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', decodeAesKey(key) as Buffer, iv).setAAD(Buffer.from(account, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(1), iv, cipher.getAuthTag(), ciphertext]);
  }

  it('records the key id in what it seals (1 when no id is configured)', () => {
    expect(SecretBox.keyIdOf(new SecretBox(k1).seal(secret, account))).toBe(LEGACY_KEY_ID);
    expect(SecretBox.keyIdOf(new SecretBox({ current: k2, currentId: '2026-11' }).seal(secret, account))).toBe('2026-11');
  });

  it('opens values sealed before key ids existed as key id 1, before and after a rotation', () => {
    const legacy = sealLegacy(k1, secret);
    expect(SecretBox.keyIdOf(legacy)).toBe(LEGACY_KEY_ID);
    expect(new SecretBox(k1).open(legacy, account)).toBe(secret);
    expect(new SecretBox({ current: k2, currentId: '2', previous: new Map([['1', k1]]) }).open(legacy, account)).toBe(secret);
  });

  it('after a rotation seals with the new key and still opens what older keys sealed', () => {
    const sealedBy1 = new SecretBox(k1).seal(secret, account);
    const sealedBy2 = new SecretBox({ current: k2, currentId: '2', previous: new Map([['1', k1]]) }).seal('whsec_second', account);
    const rotatedTwice = new SecretBox({ current: k3, currentId: '3', previous: parseKeyList(`1:${k1}, 2:${k2}`) });
    expect(rotatedTwice.open(sealedBy1, account)).toBe(secret);
    expect(rotatedTwice.open(sealedBy2, account)).toBe('whsec_second');
    const sealedBy3 = rotatedTwice.seal(secret, account);
    expect(SecretBox.keyIdOf(sealedBy3)).toBe('3');
    // Only the new key opens it: a process still on key 2 cannot.
    expect(() => new SecretBox({ current: k2, currentId: '2', previous: new Map([['1', k1]]) }).open(sealedBy3, account)).toThrow(
      /key id 3/,
    );
  });

  it('refuses a value whose key id it does not hold, or whose key id was changed', () => {
    const sealedBy2 = new SecretBox({ current: k2, currentId: '2' }).seal(secret, account);
    expect(() => new SecretBox({ current: k3, currentId: '3' }).open(sealedBy2, account)).toThrow(/key id 2, which is neither/);
    const relabelled = Buffer.from(sealedBy2);
    relabelled[2] = '3'.charCodeAt(0);
    expect(() => new SecretBox({ current: k3, currentId: '3', previous: new Map([['2', k2]]) }).open(relabelled, account)).toThrow();
  });

  it('reads a list of previous keys, naming a bad entry without its key', () => {
    expect([...parseKeyList(` 1:${k1} ,2:${k2},`).keys()]).toEqual(['1', '2']);
    expect(parseKeyList('').size).toBe(0);
    expect(() => parseKeyList(k1)).toThrow(/entry 1 must be id:key/);
    expect(() => parseKeyList(`1:${k1},1:${k2}`)).toThrow(/key id 1 is listed twice/);
    expect(() => parseKeyList('1:abc')).toThrow(/entry 1 \(id 1\) must have a key of 32 bytes/);
    expect(() => parseKeyList('1:abc')).not.toThrow(/abc/);
  });
});
