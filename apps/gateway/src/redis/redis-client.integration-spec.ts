import {
  eventually,
  PrivateRedis,
  PrivateRedisCluster,
  PrivateSentinel,
  startPrivateRedis,
  startPrivateRedisCluster,
  startPrivateSentinel,
} from '@svc/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { IdempotencyStore } from '../idempotency/idempotency';
import { WriteLimiter } from '../rate-limit/write-limiter';
import { createRedisClient, RedisClient } from '@svc/platform';
import { GATEWAY_REDIS_OPTIONS } from './redis-client';

const MASTER_NAME = 'svc-redis';
const LIMITS = {
  WRITE_LIMIT_PER_MINUTE: 100,
  WRITE_LIMIT_PER_HOUR: 1000,
  WRITE_LIMIT_MINUTE_WINDOW_MS: 60_000,
  WRITE_LIMIT_HOUR_WINDOW_MS: 3_600_000,
};

describe("the gateway's Redis client through Redis Sentinel (private master, replica and sentinel)", () => {
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
    client = createRedisClient(`redis+sentinel://127.0.0.1:${sentinel.port}/${MASTER_NAME}`, GATEWAY_REDIS_OPTIONS);
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

    // A switchover (maintenance): the old master stays up, as a replica. The client hears the
    // sentinel's +switch-master and writes on the promoted one at once, not only once the sentinel
    // has demoted the old master (its next INFO, up to 10 s later), which would lose what it took.
    const sentinelConnection = new Redis(sentinel.port, '127.0.0.1');
    direct.push(sentinelConnection);
    const reconnected = once(client, 'ready');
    await sentinelConnection.call('SENTINEL', 'FAILOVER', MASTER_NAME);
    await reconnected;
    // Moved on the sentinel's word: the old master has not been demoted yet.
    expect(await role(first)).toBe('master');
    expect(sentinel.output()).toContain(`+switch-master ${MASTER_NAME} 127.0.0.1 ${master.port} 127.0.0.1 ${replica.port}`);
    expect(await eventually(() => limiter.consume(key), 15_000)).toMatchObject({
      allowed: true,
      remaining: LIMITS.WRITE_LIMIT_PER_MINUTE - 2,
    });
    expect(await count(second, key)).toBe(2);
    await eventually(async () => expect([await role(first), await count(first, key)]).toEqual(['slave', 2]), 30_000);

    // A crash: the master stops; writes fail (503 in the gateway) until the sentinel has promoted
    // the replica, then the same client writes there, the count replicated before going on.
    first.disconnect();
    second.disconnect();
    await replica.stop();
    expect(await eventually(() => limiter.consume(key), 30_000)).toMatchObject({
      allowed: true,
      remaining: LIMITS.WRITE_LIMIT_PER_MINUTE - 3,
    });
    expect(sentinel.output()).toContain(`+switch-master ${MASTER_NAME} 127.0.0.1 ${replica.port} 127.0.0.1 ${master.port}`);
    const promoted = on(master);
    expect([await role(promoted), await count(promoted, key)]).toEqual(['master', 3]);
  }, 120_000);
});

describe("the gateway's Redis client on a Redis Cluster (private, three masters)", () => {
  let cluster: PrivateRedisCluster;
  let client: RedisClient;

  beforeAll(async () => {
    cluster = await startPrivateRedisCluster(3);
    // Two of the three as startup nodes: the client discovers the third.
    client = createRedisClient(`redis+cluster://${cluster.nodes[0]},${cluster.nodes[1]}`, GATEWAY_REDIS_OPTIONS);
    client.on('error', () => undefined);
  }, 60_000);

  afterAll(async () => {
    await client?.quit().catch(() => undefined);
    await cluster?.stop();
  });

  it('runs the write limit and the Idempotency-Key store on keys of every node (one key per script: no hash tags)', async () => {
    const limiter = new WriteLimiter(client, {
      WRITE_LIMIT_PER_MINUTE: 2,
      WRITE_LIMIT_PER_HOUR: 100,
      WRITE_LIMIT_MINUTE_WINDOW_MS: 60_000,
      WRITE_LIMIT_HOUR_WINDOW_MS: 3_600_000,
    });
    const keys = Array.from({ length: 30 }, () => randomUUID());
    await eventually(() => limiter.consume(keys[0]!), 10_000);
    const decisions = await Promise.all(keys.map(async (key) => [await limiter.consume(key), await limiter.consume(key)] as const));
    // The first key had one write already: its second here is its third, refused.
    expect(decisions.map(([a, b]) => [a.allowed, b.allowed])).toEqual(keys.map((_, i) => (i === 0 ? [true, false] : [true, true])));

    const store = new IdempotencyStore(client, { UPSTREAM_TIMEOUT_MS: 0 }, { claimMs: 5_000, waitMs: 1_000 });
    const request = { scope: 'key-1', key: randomUUID(), method: 'POST', url: '/api/v1/contacts', body: Buffer.from('{}') };
    const run = () => Promise.resolve({ status: 201, headers: {}, body: Buffer.from('{"id":1}') });
    expect((await store.answer(request, run)).replayed).toBe(false);
    expect((await store.answer(request, run)).replayed).toBe(true);

    // The keys are spread over the masters, so every one of them ran the scripts.
    const sizes = await Promise.all(
      cluster.nodes.map(async (node) => {
        const direct = new Redis(Number(node.split(':')[1]), '127.0.0.1');
        try {
          return await direct.dbsize();
        } finally {
          direct.disconnect();
        }
      }),
    );
    expect(sizes.every((size) => size > 0)).toBe(true);
  }, 60_000);
});
