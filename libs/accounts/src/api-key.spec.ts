import { randomBytes } from 'node:crypto';
import {
  API_KEY_PATTERN,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  LEGACY_API_KEY_PATTERN,
  sameHash,
} from './api-key';

/** The same key with its character at `index` replaced by another base62 character. */
const mistyped = (key: string, index: number) => key.slice(0, index) + (key[index] === 'a' ? 'b' : 'a') + key.slice(index + 1);

describe('API keys', () => {
  it('are svc_cust_, 43 random base62 characters and a 6-character checksum, all different', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) {
      expect(key).toMatch(API_KEY_PATTERN);
      expect(key).not.toMatch(LEGACY_API_KEY_PATTERN);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('refuse a key whose checksum does not match: any one character changed, or a made-up key of the right shape', () => {
    const key = generateApiKey();
    for (let i = 'svc_cust_'.length; i < key.length; i++) expect(isWellFormedApiKey(mistyped(key, i))).toBe(false);
    const madeUp = Array.from({ length: 1_000 }, () => `svc_cust_${'x'.repeat(43)}${randomBytes(3).toString('hex')}`);
    expect(madeUp.filter(isWellFormedApiKey)).toEqual([]);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}0`)).toBe(false);
    expect(isWellFormedApiKey(key.replace('svc_cust_', 'svc_test_'))).toBe(false);
  });

  it('accept a key made before the checksum (32 random bytes in base64url) as well-formed', () => {
    const legacy = `svc_cust_${randomBytes(32).toString('base64url')}`;
    expect(isWellFormedApiKey(legacy)).toBe(true);
    expect(isWellFormedApiKey(legacy.slice(0, -1))).toBe(false);
  });

  it('are stored as a SHA-256 hash and shown by a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(sameHash(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(sameHash(hashApiKey(key), hashApiKey(generateApiKey()))).toBe(false);
    expect(displayPrefix(key)).toBe(key.slice(0, 13));
  });
});
