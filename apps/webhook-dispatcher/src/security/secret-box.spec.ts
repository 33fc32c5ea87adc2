import { randomBytes } from 'node:crypto';
import { decodeAesKey, SecretBox } from './secret-box';

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
