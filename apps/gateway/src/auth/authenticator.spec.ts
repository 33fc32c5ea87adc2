import { AccountsRepository, generateApiKey, hashApiKey, PrincipalRow } from '@svc/accounts';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiKeyAuthenticator } from './authenticator';

/** A repository that knows `keys` and counts the queries it answers. */
function fakeRepository(keys: string[]) {
  const rows = new Map<string, PrincipalRow>();
  const add = (key: string) =>
    rows.set(hashApiKey(key).toString('hex'), {
      key_id: String(rows.size + 1),
      key_hash: hashApiKey(key),
      key_prefix: key.slice(0, 13),
      account_widget: 'wgt_0123456789abcdef0123456789abcdef',
      key_created_at: '2026-11-21T10:04:05.123456+00:00',
      account_id: '7',
      account_name: 'Acme',
      account_plan: 'scale',
    });
  keys.forEach(add);
  const findPrincipal = jest.fn(async (hash: Buffer) => rows.get(hash.toString('hex')));
  return { add, findPrincipal, repository: { findPrincipal } as unknown as AccountsRepository };
}

describe('ApiKeyAuthenticator', () => {
  it('asks the database at most once per unknown key within the cache time, however often or concurrently it is sent', async () => {
    const { findPrincipal, repository } = fakeRepository([]);
    const authenticator = new ApiKeyAuthenticator(repository, { AUTH_CACHE_TTL_MS: 60_000 });
    const guesses = Array.from({ length: 200 }, () => generateApiKey());
    const answers = await Promise.all([...guesses, ...guesses].map((key) => authenticator.lookup(key)));
    for (const key of guesses) expect(await authenticator.lookup(key)).toBeNull();
    expect(answers.every((answer) => answer === null)).toBe(true);
    expect(findPrincipal).toHaveBeenCalledTimes(200);
  });

  it('asks the database once per known key, then answers it synchronously from the cache', async () => {
    const key = generateApiKey();
    const { findPrincipal, repository } = fakeRepository([key]);
    const authenticator = new ApiKeyAuthenticator(repository, { AUTH_CACHE_TTL_MS: 60_000 });
    expect(authenticator.cached(key)).toBeUndefined();
    const [first, second] = await Promise.all([authenticator.lookup(key), authenticator.lookup(key)]);
    expect(first).toEqual({
      account: { id: '7', name: 'Acme', plan: 'scale' },
      key: { id: '1', prefix: key.slice(0, 13), created_at: expect.any(String) },
      widget: 'wgt_0123456789abcdef0123456789abcdef',
    });
    expect(second).toBe(first);
    expect(authenticator.cached(key)).toBe(first);
    expect(findPrincipal).toHaveBeenCalledTimes(1);
  });

  it('keeps real keys cached however many unknown keys are tried (separate, bounded caches)', async () => {
    const real = Array.from({ length: 50 }, () => generateApiKey());
    const { findPrincipal, repository } = fakeRepository(real);
    const authenticator = new ApiKeyAuthenticator(
      repository,
      { AUTH_CACHE_TTL_MS: 60_000 },
      { known: 100, unknown: 20, unknownTtlMs: 60_000 },
    );
    for (const key of real) await authenticator.lookup(key);
    for (let i = 0; i < 1_000; i += 1) await authenticator.lookup(generateApiKey());
    expect(real.every((key) => authenticator.cached(key) !== undefined)).toBe(true);
    expect(findPrincipal).toHaveBeenCalledTimes(50 + 1_000);
  });

  it('forgets an unknown key once its cache time has passed, so a key created later is found', async () => {
    const key = generateApiKey();
    const { add, findPrincipal, repository } = fakeRepository([]);
    const authenticator = new ApiKeyAuthenticator(repository, { AUTH_CACHE_TTL_MS: 60_000 }, { known: 10, unknown: 10, unknownTtlMs: 50 });
    expect(await authenticator.lookup(key)).toBeNull();
    add(key);
    expect(await authenticator.lookup(key)).toBeNull(); // remembered: no second query
    expect(findPrincipal).toHaveBeenCalledTimes(1);
    await sleep(60);
    expect(await authenticator.lookup(key)).not.toBeNull();
    expect(findPrincipal).toHaveBeenCalledTimes(2);
  });

  it('answers null without a query for a token that is not shaped like a key, or a key whose checksum does not match', async () => {
    const key = generateApiKey();
    const { findPrincipal, repository } = fakeRepository([key]);
    const authenticator = new ApiKeyAuthenticator(repository, { AUTH_CACHE_TTL_MS: 60_000 });
    const typo = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    const badChecksum = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
    for (const token of ['', 'svc_cust_short', typo, badChecksum, `${key}x`, `svc_cust_${'x'.repeat(49)}`]) {
      expect(await authenticator.lookup(token)).toBeNull();
    }
    expect(findPrincipal).not.toHaveBeenCalled();
  });

  it('remembers an unknown key longer than a known one: a repeated unknown key costs no query after the known-key cache time', async () => {
    const { findPrincipal, repository } = fakeRepository([]);
    const authenticator = new ApiKeyAuthenticator(repository, { AUTH_CACHE_TTL_MS: 10 });
    const stale = generateApiKey();
    expect(await authenticator.lookup(stale)).toBeNull();
    await sleep(30);
    expect(await authenticator.lookup(stale)).toBeNull();
    expect(findPrincipal).toHaveBeenCalledTimes(1);
  });

  it('looks up a key made before the checksum (no checksum to check) and finds it', async () => {
    const legacy = `svc_cust_${randomBytes(32).toString('base64url')}`;
    const { findPrincipal, repository } = fakeRepository([legacy]);
    const authenticator = new ApiKeyAuthenticator(repository, { AUTH_CACHE_TTL_MS: 60_000 });
    expect(await authenticator.lookup(legacy)).not.toBeNull();
    expect(await authenticator.lookup(legacy.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')))).toBeNull();
    expect(findPrincipal).toHaveBeenCalledTimes(2);
  });
});
