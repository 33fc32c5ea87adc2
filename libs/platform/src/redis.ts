import { makeValidator } from './config';
import Redis, { Cluster, type RedisOptions } from 'ioredis';

/**
 * REDIS_URL, in one of three forms:
 * - `redis://[[user]:password@]host[:6379][/db]` (`rediss://` for TLS): one server, as ioredis reads it.
 * - `redis+sentinel://[[user]:password@]host1[:26379],host2[:26379],…/<master name>`: Redis
 *   Sentinel; the client asks the sentinels for the master of that name and follows a failover.
 *   The credentials are the Redis servers'; sentinels that require their own take
 *   `?sentinelUsername=…&sentinelPassword=…`.
 * - `redis+cluster://[[user]:password@]host1[:6379],host2[:6379],…`: Redis Cluster, from these
 *   startup nodes (the client discovers the rest).
 * `rediss+sentinel://` and `rediss+cluster://` use TLS to every server (and sentinel). The user,
 * password and query values are percent-encoded, as in any URL.
 */
export type RedisTarget =
  | { mode: 'standalone'; url: string }
  | {
      mode: 'sentinel';
      tls: boolean;
      sentinels: RedisNode[];
      masterName: string;
      username?: string;
      password?: string;
      sentinelUsername?: string;
      sentinelPassword?: string;
    }
  | { mode: 'cluster'; tls: boolean; nodes: RedisNode[]; username?: string; password?: string };

export interface RedisNode {
  host: string;
  port: number;
}

/** A Redis client: one connection (single server or through Sentinel) or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

const DEFAULT_PORT = { sentinel: 26379, cluster: 6379 } as const;
const SENTINEL_PARAMS = new Set(['sentinelUsername', 'sentinelPassword']);
/** scheme://[userinfo@]hosts[/path][?query] — hosts is a comma-separated list, so not a WHATWG URL. */
const MULTI_HOST = /^(redis|rediss)\+(sentinel|cluster):\/\/(?:([^@/?#]*)@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/;

/** Parses REDIS_URL; throws an Error whose message says what is wrong (the config names the variable). */
export function parseRedisUrl(value: string): RedisTarget {
  if (/^rediss?:\/\//.test(value)) {
    new URL(value); // throws on a malformed one
    return { mode: 'standalone', url: value };
  }
  const match = MULTI_HOST.exec(value);
  if (!match)
    throw new Error(
      'must be redis://, rediss://, redis+sentinel://host:port,…/<master name> or redis+cluster://host:port,… (see the configuration table)',
    );
  const [, scheme, mode, userinfo, hostList, path = '', query = ''] = match as unknown as [
    string,
    'redis' | 'rediss',
    'sentinel' | 'cluster',
    string | undefined,
    string,
    string | undefined,
    string | undefined,
  ];
  const tls = scheme === 'rediss';
  const nodes = hostList.split(',').map((entry) => parseNode(entry.trim(), DEFAULT_PORT[mode]));
  const credentials = parseUserinfo(userinfo);
  const params = new URLSearchParams(query);
  if (mode === 'cluster') {
    if (path !== '' && path !== '/') throw new Error('redis+cluster:// takes no path (a cluster has database 0 only)');
    if ([...params.keys()].length > 0) throw new Error(`redis+cluster:// takes no query parameters (got ${[...params.keys()].join(', ')})`);
    return { mode, tls, nodes, ...credentials };
  }
  const masterName = decodeURIComponent(path.replace(/^\//, ''));
  if (masterName === '' || masterName.includes('/'))
    throw new Error(
      'redis+sentinel:// needs the master name as its path, e.g. redis+sentinel://sentinel-0:26379,sentinel-1:26379/mymaster',
    );
  const unknown = [...params.keys()].filter((key) => !SENTINEL_PARAMS.has(key));
  if (unknown.length > 0)
    throw new Error(`unknown query parameter ${unknown.join(', ')} (redis+sentinel:// accepts sentinelUsername and sentinelPassword)`);
  const sentinelUsername = params.get('sentinelUsername') ?? undefined;
  const sentinelPassword = params.get('sentinelPassword') ?? undefined;
  return {
    mode,
    tls,
    sentinels: nodes,
    masterName,
    ...credentials,
    ...(sentinelUsername ? { sentinelUsername } : {}),
    ...(sentinelPassword ? { sentinelPassword } : {}),
  };
}

function parseNode(entry: string, defaultPort: number): RedisNode {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
  const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
  if (!match || port < 1 || port > 65535) throw new Error(`"${entry}" is not a host[:port]`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

function parseUserinfo(userinfo: string | undefined): { username?: string; password?: string } {
  if (userinfo === undefined) return {};
  const colon = userinfo.indexOf(':');
  const username = decodeURIComponent(colon === -1 ? userinfo : userinfo.slice(0, colon));
  const password = colon === -1 ? '' : decodeURIComponent(userinfo.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** REDIS_URL's validator: refuses at boot what `parseRedisUrl` cannot read. */
export const redisUrl = makeValidator<string>((value) => {
  parseRedisUrl(value);
  return value;
});

/**
 * The client for REDIS_URL with the app's options on every connection it makes. Through
 * Sentinel, the client listens for the sentinels' `+switch-master` (ioredis' failover detector)
 * and asks them for the new master as soon as one is promoted: in a switchover the old master
 * answers as a master until a sentinel demotes it, up to 10 s later (its INFO period), and a write
 * it took meanwhile would be lost. A stopped master closes the connections itself; writes until
 * the promotion fail (503).
 * The Lua scripts and commands the apps send each touch one key, so they run unchanged on a
 * cluster (no hash tags needed).
 */
export function createRedisClient(url: string, options: RedisOptions): RedisClient {
  const target = parseRedisUrl(url);
  if (target.mode === 'standalone') return new Redis(url, options);
  const { username, password } = target;
  if (target.mode === 'sentinel') {
    const { sentinels, masterName: name, sentinelUsername, sentinelPassword } = target;
    return new Redis({
      ...options,
      sentinels,
      name,
      username,
      password,
      sentinelUsername,
      sentinelPassword,
      failoverDetector: true,
      ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
    });
  }
  const { enableOfflineQueue, ...nodeOptions } = options;
  return new Cluster(target.nodes, {
    enableOfflineQueue,
    redisOptions: { ...nodeOptions, username, password, ...(target.tls ? { tls: {} } : {}) },
  });
}
