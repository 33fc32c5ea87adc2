import { CreatedWebhookDto, WebhookListDto } from '@svc/contracts';
import { PrivateRedis, Stack, startApp, startPrivateRedis, startStack, TestAccount, waitFor } from '@svc/testing';
import Redis from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const URL_A = 'https://93.184.215.14/svc/redis-outage-a';

/**
 * `Idempotency-Key` while the gateway's Redis (a private one: the shared Redis is never stopped)
 * is down: a POST is refused with 503 and runs nothing; once Redis is back the same request with
 * the same key runs exactly once and is replayed after. And when Redis stops answering while a
 * first request is inside the service, its answer is still given and the key is not left "in
 * progress": a retry gets that first answer.
 */
describe('Idempotency-Key while the gateway’s Redis is down (gateway and webhook-dispatcher processes, a private Redis)', () => {
  let redis: PrivateRedis;
  let stack: Stack;

  const post = (account: TestAccount, key: string) =>
    stack.call('/webhooks', { method: 'POST', key: account.key, json: { url: URL_A }, headers: { 'idempotency-key': key } });
  const endpoints = async (account: TestAccount) =>
    ((await (await stack.call('/webhooks', { key: account.key })).json()) as WebhookListDto).webhooks;
  /** The gateway reports Redis as reachable again (it reconnects by itself). */
  const redisBack = () =>
    waitFor('the gateway to reach Redis again', async () => {
      const ready = await fetch(`${stack.gateway.url}/readyz`);
      const body = (await ready.json()) as { checks: { redis: string } };
      return body.checks.redis === 'ok' ? true : undefined;
    });

  /**
   * POSTs with `key` while the service holds the request (its process stopped) and, once the gateway has claimed the
   * key, takes Redis away before the service answers: `frozen` (connections open, nothing answered) or `stopped`; gives
   * it back once the answer is in.
   */
  async function answerAcrossOutage(account: TestAccount, key: string, outage: 'frozen' | 'stopped'): Promise<Response> {
    const dispatcher = stack.services['webhook-dispatcher']!.process.pid!;
    const observer = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    // The service holds the request (its process stopped) once the gateway has claimed the key.
    process.kill(dispatcher, 'SIGSTOP');
    const answer = post(account, key);
    try {
      await observer.connect();
      // Its claim, under `idempotency:<API key id>:<sha256 of the Idempotency-Key>` (no other test's key matches).
      const claim = `idempotency:*:${createHash('sha256').update(key).digest('base64url')}`;
      await waitFor('the gateway to claim the key', async () => ((await observer.keys(claim)).length === 1 ? true : undefined));
      observer.disconnect();
      if (outage === 'frozen') redis.pause();
      else await redis.stop();
    } finally {
      process.kill(dispatcher, 'SIGCONT');
    }
    try {
      return await answer;
    } finally {
      if (outage === 'frozen') redis.resume();
      else await redis.start();
    }
  }

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startStack(['webhook-dispatcher'], { appEnv: { gateway: { REDIS_URL: redis.url } } });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
  });

  it('answers 503 unavailable (contract shape, Retry-After) and writes nothing while Redis is stopped; once it is back the same request runs once, and its replay is the first answer', async () => {
    const account = await stack.newAccount();
    expect(await endpoints(account)).toEqual([]); // the key is known (cached) before the outage
    const key = randomUUID();

    await redis.stop();
    try {
      for (let i = 0; i < 3; i += 1) {
        const refused = await post(account, key);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(await refused.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
      }
      expect(await endpoints(account)).toEqual([]);
    } finally {
      await redis.start();
    }
    await redisBack();

    const first = await post(account, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const created = (await first.json()) as CreatedWebhookDto;
    const replay = await post(account, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(created);
    expect((await endpoints(account)).map((w) => w.id)).toEqual([created.id]);
  });

  it('Redis frozen while the first request is inside the service: the caller still gets its answer, and once Redis answers again a retry with the key replays it (never left "in progress")', async () => {
    const account = await stack.newAccount();
    expect(await endpoints(account)).toEqual([]);
    const key = randomUUID();
    // Redis stops answering (connections open, nothing answered), then the service answers.
    const first = await answerAcrossOutage(account, key, 'frozen');
    expect(first.status).toBe(201);
    const created = (await first.json()) as CreatedWebhookDto;
    await redisBack();

    const retry = await post(account, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(created);
    expect((await endpoints(account)).map((w) => w.id)).toEqual([created.id]);
  }, 90_000);

  it('Redis stopped while the first request is inside the service: the caller still gets its answer, and a retry after Redis is back is answered (the key is not left "in progress")', async () => {
    const account = await stack.newAccount();
    expect(await endpoints(account)).toEqual([]);
    const key = randomUUID();
    const first = await answerAcrossOutage(account, key, 'stopped');
    expect(first.status).toBe(201);
    await redisBack();
    // This Redis keeps nothing across a restart (no persistence): the claim went with it, so the
    // retry is a new first request (a Redis that persists would replay the stored answer instead).
    const retry = await post(account, key);
    expect(retry.status).toBe(201);
    expect((await post(account, key)).headers.get('idempotent-replayed')).toBe('true');
  }, 90_000);

  it("a gateway started while Redis is down says so in one JSON log line, never in ioredis's own unhandled-error print", async () => {
    await redis.stop();
    try {
      // A second gateway on the stack's database; degraded (200) without Redis, so it starts.
      const gateway = await startApp('gateway', { ...stack.env, REDIS_URL: redis.url });
      await sleep(1_500); // several reconnection attempts
      await gateway.stop();
      expect(gateway.output()).toContain('"msg":"Redis unavailable: writes answer 503 until it is back; reads go on"');
      expect(gateway.output()).not.toContain('[ioredis]');
    } finally {
      await redis.start();
    }
    await redisBack();
  }, 60_000);
});
