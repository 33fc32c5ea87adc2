import { API_KEY_PATTERN, displayPrefix, generateApiKey, hashApiKey, sameHash } from './api-key';

describe('API keys', () => {
  it('are svc_cust_ and 32 random bytes in base64url, all different', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(API_KEY_PATTERN);
  });

  it('are stored as a SHA-256 hash and shown by a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(sameHash(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(sameHash(hashApiKey(key), hashApiKey(generateApiKey()))).toBe(false);
    expect(displayPrefix(key)).toBe(key.slice(0, 13));
  });
});
