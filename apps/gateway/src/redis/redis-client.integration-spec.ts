import { PrivateRedis, PrivateSentinel, startPrivateRedis, startPrivateSentinel } from '@svc/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WriteLimiter } from '../rate-limit/write-limiter';
import { createRedisClient, RedisClient } from './redis-client';

const MASTER_NAME = 'svc-redis';
const LIMITS = { perMinute: 100, perHour: 1000, minuteWindowMs: 60_000, hourWindowMs: 3_600_000 };

/** Waits until `check` passes, or throws its last failure after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

describe('the gateway\'s Redis client through Redis Sentinel (private master, replica and sentinel)', () => {
  let master: PrivateRedis;
  let replica: PrivateRedis;
  let sentinel: PrivateSentinel;
  let client: RedisClient;
  const direct: Redis[] = [];
  const on = (server: PrivateRedis) => {
    const connection = new Redis(server.url);
    direct.push(connection);
    return connection;
  };

  beforeAll(async () => {
    master = await startPrivateRedis();
    replica = await startPrivateRedis(10_000, { replicaOf: master.port });
    sentinel = await startPrivateSentinel(master.port, MASTER_NAME);
    // The sentinel learns of the replica from the master's INFO; a failover needs it.
    await eventually(async () => expect(sentinel.output()).toContain(`+slave slave 127.0.0.1:${replica.port}`), 15_000);
    // The gateway's own options: no offline queue, so a command fails at once while no master answers.
    client = createRedisClient(`redis+sentinel://127.0.0.1:${sentinel.port}/${MASTER_NAME}`, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: 1_000,
      connectionName: 'gateway',
    });
    // As the gateway does: a lost connection is logged there, not thrown.
    client.on('error', () => undefined);
  }, 60_000);

  afterAll(async () => {
    await client?.quit().catch(() => undefined);
    direct.forEach((c) => c.disconnect());
    await sentinel?.stop();
    await replica?.stop();
    await master?.stop();
  });

  const role = async (server: Redis) => /role:(\w+)/.exec(await server.info('replication'))?.[1];
  const count = (server: Redis, key: string) => server.zcard(`ratelimit:writes:${key}`);

  it('writes on the master the sentinel names, follows a manual failover, then a failover after the master stopped', async () => {
    const limiter = new WriteLimiter(client, LIMITS);
    const key = randomUUID();
    const first = on(master);
    const second = on(replica);
    await eventually(() => limiter.consume(key), 10_000);
    expect(await count(first, key)).toBe(1);
    await eventually(async () => expect(await count(second, key)).toBe(1), 5_000);

    // A switchover (maintenance): the old master stays up, as a replica; the client asks the
    // sentinels again and writes on the promoted one.
    const sentinelConnection = new Redis(sentinel.port, '127.0.0.1');
    direct.push(sentinelConnection);
    await sentinelConnection.call('SENTINEL', 'FAILOVER', MASTER_NAME);
    // (A write the old master accepts between the promotion and its demotion is lost: Redis
    // replicates asynchronously; docs/operations.md "Scaling and capacity" says what that costs.)
    await eventually(async () => expect([await role(second), await role(first)]).toEqual(['master', 'slave']), 15_000);
    expect(await eventually(() => limiter.consume(key), 15_000)).toMatchObject({ allowed: true, remaining: LIMITS.perMinute - 2 });
    expect(await count(second, key)).toBe(2);
    await eventually(async () => expect(await count(first, key)).toBe(2), 15_000);

    // A crash: the master stops; writes fail (503 in the gateway) until the sentinel has promoted
    // the replica, then the same client writes there, the count replicated before going on.
    first.disconnect();
    second.disconnect();
    await replica.stop();
    expect(await eventually(() => limiter.consume(key), 30_000)).toMatchObject({ allowed: true, remaining: LIMITS.perMinute - 3 });
    expect(sentinel.output()).toContain(`+switch-master ${MASTER_NAME} 127.0.0.1 ${replica.port} 127.0.0.1 ${master.port}`);
    const promoted = on(master);
    expect([await role(promoted), await count(promoted, key)]).toEqual(['master', 3]);
  }, 60_000);
});
