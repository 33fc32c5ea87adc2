import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { WriteLimiter, WriteLimitConfig } from './write-limiter';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe('WriteLimiter (real Redis)', () => {
  const connections: Redis[] = [];
  const limiter = (limits: WriteLimitConfig) => {
    const redis = new Redis(REDIS_URL);
    connections.push(redis);
    return new WriteLimiter(redis, limits);
  };
  const burst = (l: WriteLimiter, key: string, n: number) => Promise.all(Array.from({ length: n }, () => l.consume(key)));

  afterAll(() => connections.forEach((c) => c.disconnect()));

  it('accepts 120 writes in a minute and refuses the 121st with a Retry-After within the minute', async () => {
    const l = limiter({
      WRITE_LIMIT_PER_MINUTE: 120,
      WRITE_LIMIT_PER_HOUR: 3000,
      WRITE_LIMIT_MINUTE_WINDOW_MS: 60_000,
      WRITE_LIMIT_HOUR_WINDOW_MS: 3_600_000,
    });
    const key = randomUUID();
    const decisions = await burst(l, key, 120);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(Math.min(...decisions.map((d) => d.remaining))).toBe(0);
    const refused = await l.consume(key);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused).toMatchObject({ limit: 120, remaining: 0 });
  });

  it('does not count refused writes, and accepts a write once Retry-After has passed', async () => {
    const l = limiter({
      WRITE_LIMIT_PER_MINUTE: 3,
      WRITE_LIMIT_PER_HOUR: 1000,
      WRITE_LIMIT_MINUTE_WINDOW_MS: 1_500,
      WRITE_LIMIT_HOUR_WINDOW_MS: 60_000,
    });
    const key = randomUUID();
    await burst(l, key, 3);
    const refusals = await burst(l, key, 20);
    expect(refusals.every((d) => !d.allowed)).toBe(true);
    await sleep(refusals[0]!.retryAfterSeconds * 1000);
    const decisions = await burst(l, key, 4);
    // Had the 20 refusals counted, nothing would be accepted now.
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
  });

  it('refuses the 3,001st write in an hour even when each minute has room', async () => {
    const l = limiter({
      WRITE_LIMIT_PER_MINUTE: 120,
      WRITE_LIMIT_PER_HOUR: 3000,
      WRITE_LIMIT_MINUTE_WINDOW_MS: 40,
      WRITE_LIMIT_HOUR_WINDOW_MS: 120_000,
    });
    const key = randomUUID();
    let accepted = 0;
    while (accepted < 3000) {
      const round = await burst(l, key, 120);
      accepted += round.filter((d) => d.allowed).length;
      await sleep(45);
    }
    expect(accepted).toBe(3000);
    const refused = await l.consume(key);
    expect(refused.allowed).toBe(false);
    expect(refused).toMatchObject({ limit: 3000, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThan(100);
  });

  it('never accepts more than the limit across independent connections (several gateways)', async () => {
    const limits = {
      WRITE_LIMIT_PER_MINUTE: 120,
      WRITE_LIMIT_PER_HOUR: 3000,
      WRITE_LIMIT_MINUTE_WINDOW_MS: 60_000,
      WRITE_LIMIT_HOUR_WINDOW_MS: 3_600_000,
    };
    const gateways = [limiter(limits), limiter(limits), limiter(limits)];
    const key = randomUUID();
    const decisions = (await Promise.all(gateways.map((g) => burst(g, key, 100)))).flat();
    expect(decisions.filter((d) => d.allowed)).toHaveLength(120);
  });
});
