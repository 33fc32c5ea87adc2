import { ApiError } from '@svc/platform';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Answer, fingerprintOf, IDEMPOTENCY_TTL_MS, idempotencyKeyOf, IdempotencyStore, IdempotentRequest } from './idempotency';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const answer = (status: number, body: unknown): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});

describe('IdempotencyStore (real Redis)', () => {
  const redis = new Redis(REDIS_URL);
  const store = new IdempotencyStore(redis, { UPSTREAM_TIMEOUT_MS: 0 }, { claimMs: 5_000, waitMs: 500 });
  const request = (overrides: Partial<IdempotentRequest> = {}): IdempotentRequest => ({
    scope: `key-${randomUUID()}`,
    key: randomUUID(),
    method: 'POST',
    url: '/api/v1/webhooks',
    body: Buffer.from('{"url":"https://example.com/a"}'),
    ...overrides,
  });

  afterAll(() => redis.disconnect());

  it('runs concurrent requests with one key once; the others wait and get the same answer as a replay', async () => {
    const first = request();
    let runs = 0;
    const run = async () => {
      runs++;
      await sleep(200);
      return answer(201, { id: runs });
    };
    const results = await Promise.all([store.answer(first, run), store.answer({ ...first }, run), store.answer({ ...first }, run)]);
    expect(runs).toBe(1);
    expect(results.map((r) => r.answer.status)).toEqual([201, 201, 201]);
    expect(results.map((r) => r.answer.body.toString())).toEqual(Array(3).fill('{"id":1}'));
    expect(results.filter((r) => r.replayed)).toHaveLength(2);
  });

  it('keeps the answer for 24 hours, and only a final one: after a 5xx or a failure the next request runs again', async () => {
    const first = request();
    await store.answer(first, async () => answer(201, { ok: true }));
    const ttl = await redis.pttl((await redis.keys(`idempotency:${first.scope}:*`))[0] as string);
    expect(ttl).toBeGreaterThan(IDEMPOTENCY_TTL_MS - 60_000);

    const failing = request();
    expect((await store.answer(failing, async () => answer(503, { error: {} }))).replayed).toBe(false);
    await expect(
      store.answer(failing, async () => {
        throw new Error('upstream down');
      }),
    ).rejects.toThrow('upstream down');
    const retried = await store.answer(failing, async () => answer(201, { ok: true }));
    expect(retried).toEqual({ answer: expect.objectContaining({ status: 201 }), replayed: false });
  });

  it('refuses the same key with another body or path (409), and keeps scopes apart', async () => {
    const first = request();
    await store.answer(first, async () => answer(201, { ok: true }));
    const conflict = (other: IdempotentRequest) =>
      store
        .answer(other, async () => answer(201, {}))
        .then(
          () => undefined,
          (err: ApiError) => err.code,
        );
    expect(await conflict({ ...first, body: Buffer.from('{"url":"https://example.com/b"}') })).toBe('conflict');
    expect(await conflict({ ...first, url: '/api/v1/knowledge/bulk' })).toBe('conflict');
    expect((await store.answer({ ...first, scope: 'another-api-key' }, async () => answer(201, { other: true }))).replayed).toBe(false);
  });

  it('gives up waiting for a first request that outlives the wait with 409, and replays its answer later', async () => {
    const slow = request();
    const running = store.answer(slow, async () => {
      await sleep(1_000);
      return answer(201, { first: true });
    });
    await sleep(50);
    await expect(store.answer({ ...slow }, async () => answer(201, {}))).rejects.toMatchObject({ code: 'conflict' });
    await running;
    // Once the first has its answer, a retry replays it.
    expect(await store.answer({ ...slow }, async () => answer(201, {}))).toEqual({
      answer: expect.objectContaining({ body: Buffer.from('{"first":true}') }),
      replayed: true,
    });
  });
});

describe('the Idempotency-Key header and the request it stands for', () => {
  it.each([['a'], ['k'.repeat(255)], ['order 42: retry ~ #1'], [undefined]])('accepts %j', (header) => {
    expect(idempotencyKeyOf(header)).toBe(header);
  });

  it.each([[''], ['k'.repeat(256)], ['tab\there'], ['caf\u00e9'], [['a', 'b']]])('refuses %j with 400 invalid_parameter', (header) => {
    expect(() => idempotencyKeyOf(header)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });

  it('fingerprints method, path with query, and the exact body bytes', () => {
    const base = { method: 'POST', url: '/api/v1/webhooks', body: Buffer.from('{"a":1}') };
    expect(fingerprintOf(base)).toBe(fingerprintOf({ ...base, body: Buffer.from('{"a":1}') }));
    expect(
      new Set(
        [base, { ...base, body: Buffer.from('{"a": 1}') }, { ...base, url: '/api/v1/webhooks?x=1' }, { ...base, body: undefined }].map(
          fingerprintOf,
        ),
      ).size,
    ).toBe(4);
  });
});
