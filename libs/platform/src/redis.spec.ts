import Redis, { Cluster } from 'ioredis';
import { loadConfig } from './config';
import { createRedisClient, parseRedisUrl, redisUrl } from './redis';

const spec = { REDIS_URL: redisUrl({ default: 'redis://127.0.0.1:6379' }) };

describe('REDIS_URL', () => {
  it.each(['redis://127.0.0.1:6379', 'rediss://:secret@redis.example.internal:6380/2', 'redis://user:pw@localhost'])(
    'passes the one-server URL %s to ioredis unchanged',
    (url) => {
      expect(parseRedisUrl(url)).toEqual({ mode: 'standalone', url });
    },
  );

  it("reads a Sentinel URL: the sentinels (26379 by default), the master name, the servers' credentials", () => {
    expect(parseRedisUrl('redis+sentinel://:s%40cret@svc-redis-0.svc-redis:26379,svc-redis-1.svc-redis,[fd00::5]:26380/mymaster')).toEqual({
      mode: 'sentinel',
      tls: false,
      sentinels: [
        { host: 'svc-redis-0.svc-redis', port: 26379 },
        { host: 'svc-redis-1.svc-redis', port: 26379 },
        { host: 'fd00::5', port: 26380 },
      ],
      masterName: 'mymaster',
      password: 's@cret',
    });
  });

  it("takes the sentinels' own credentials from the query, and TLS from rediss+sentinel", () => {
    expect(parseRedisUrl('rediss+sentinel://app:pw@a:1,b:2/main?sentinelUsername=watch&sentinelPassword=p%26q')).toEqual({
      mode: 'sentinel',
      tls: true,
      sentinels: [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
      masterName: 'main',
      username: 'app',
      password: 'pw',
      sentinelUsername: 'watch',
      sentinelPassword: 'p&q',
    });
  });

  it('reads a Cluster URL: its startup nodes (6379 by default) and credentials', () => {
    expect(parseRedisUrl('redis+cluster://:pw@node-a:7000,node-b')).toEqual({
      mode: 'cluster',
      tls: false,
      nodes: [
        { host: 'node-a', port: 7000 },
        { host: 'node-b', port: 6379 },
      ],
      password: 'pw',
    });
  });

  it.each([
    ['redis+sentinel://a:26379,b:26379', /master name/],
    ['redis+sentinel://a:26379/mymaster/2', /master name/],
    ['redis+sentinel://a:26379/mymaster?db=2', /unknown query parameter db/],
    ['redis+cluster://a:6379/1', /no path/],
    ['redis+cluster://a:6379?sentinelPassword=x', /no query parameters/],
    ['redis+cluster://a:99999', /not a host\[:port\]/],
    ['redis+cluster://a:6379,,b', /not a host\[:port\]/],
    ['memcached://a:11211', /must be redis:\/\//],
    ['redis://exa mple:6379', /Invalid URL/],
  ])('refuses %s', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('is validated at boot, naming the variable, and accepts the three forms', () => {
    expect(() => loadConfig(spec, { REDIS_URL: 'redis+sentinel://a,b' })).toThrow(/REDIS_URL/);
    for (const url of ['redis://r:6379', 'redis+sentinel://a,b/mymaster', 'redis+cluster://a,b']) {
      expect(loadConfig(spec, { REDIS_URL: url }).REDIS_URL).toBe(url);
    }
  });

  describe('the client made from it', () => {
    const options = { lazyConnect: true, enableOfflineQueue: false, commandTimeout: 1_000, connectionName: 'gateway' };

    it('asks the sentinels for the named master, with the given options', () => {
      const client = createRedisClient('redis+sentinel://:pw@a:26379,b:26380/mymaster?sentinelPassword=sp', options);
      try {
        expect(client).toBeInstanceOf(Redis);
        expect((client as Redis).options).toMatchObject({
          sentinels: [
            { host: 'a', port: 26379 },
            { host: 'b', port: 26380 },
          ],
          name: 'mymaster',
          password: 'pw',
          sentinelPassword: 'sp',
          enableOfflineQueue: false,
          commandTimeout: 1_000,
          connectionName: 'gateway',
        });
      } finally {
        client.disconnect();
      }
    });

    it('is a Cluster client for redis+cluster, the options on every node connection', () => {
      const client = createRedisClient('redis+cluster://:pw@a:7000,b:7001', options);
      try {
        expect(client).toBeInstanceOf(Cluster);
        const cluster = client as Cluster;
        expect(cluster.options.enableOfflineQueue).toBe(false);
        expect(cluster.options.redisOptions).toMatchObject({ password: 'pw', commandTimeout: 1_000, connectionName: 'gateway' });
      } finally {
        client.disconnect();
      }
    });
  });
});
