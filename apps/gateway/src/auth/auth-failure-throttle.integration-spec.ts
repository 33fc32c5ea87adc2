import { PrivateRedis, startPrivateRedis } from '@svc/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { AuthFailureThrottle } from './auth-failure-throttle';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const LIMITS = { failures: 5, windowMs: 60_000 };

describe('AuthFailureThrottle (real Redis)', () => {
  const connections: Redis[] = [];
  const throttle = (url = REDIS_URL) => {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1_000 });
    redis.on('error', () => undefined);
    connections.push(redis);
    return { redis, throttle: new AuthFailureThrottle(redis, LIMITS) };
  };
  const ready = (redis: Redis) =>
    redis.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => redis.once('ready', () => resolve()));

  afterAll(async () => {
    await Promise.all(connections.map((c) => (c.status === 'ready' ? c.quit() : c.disconnect())));
  });

  it('throttles an address after its limit of failures, on every gateway process, and leaves other addresses alone', async () => {
    const [a, b] = [throttle(), throttle()];
    await Promise.all([ready(a.redis), ready(b.redis)]);
    const address = `203.0.113.${randomUUID()}`;
    for (let i = 0; i < LIMITS.failures; i += 1) {
      expect(await (i % 2 ? a : b).throttle.retryAfterSeconds(address)).toBe(0);
      await (i % 2 ? a : b).throttle.recordFailure(address);
    }
    const wait = await b.throttle.retryAfterSeconds(address);
    expect(wait).toBeGreaterThanOrEqual(59);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await a.throttle.retryAfterSeconds(address)).toBeGreaterThan(0);
    expect(await a.throttle.retryAfterSeconds(`203.0.113.${randomUUID()}`)).toBe(0);
  });

  describe('while Redis is unreachable', () => {
    let redis: PrivateRedis;
    beforeAll(async () => (redis = await startPrivateRedis()));
    afterAll(async () => {
      await Promise.all(connections.splice(0).map((c) => (c.status === 'ready' ? c.quit() : c.disconnect())));
      await redis?.stop();
    });

    it('counts in process memory without waiting on Redis, and goes back to Redis when it returns', async () => {
      const { redis: client, throttle: t } = throttle(redis.url);
      await ready(client);
      await redis.stop();
      const address = `198.51.100.${randomUUID()}`;
      for (let i = 0; i < LIMITS.failures; i += 1) await t.recordFailure(address);
      expect(await t.retryAfterSeconds(address)).toBeGreaterThan(0);
      expect(await t.retryAfterSeconds(`198.51.100.${randomUUID()}`)).toBe(0);

      await redis.start();
      await ready(client);
      const after = `192.0.2.${randomUUID()}`;
      for (let i = 0; i < LIMITS.failures; i += 1) await t.recordFailure(after);
      expect(await t.retryAfterSeconds(after)).toBeGreaterThan(0);
      expect(Number(await client.get(`ratelimit:auth-failures:${after}`))).toBe(LIMITS.failures);
    });
  });
});
