import type { RedisOptions } from 'ioredis';

/** The Nest token of the gateway's one client. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * The gateway's options on every connection: no offline queue and a command timeout, so that while
 * Redis is away a write gets its 503 at once, never a queued command (and a Redis that accepts the
 * connection but does not answer holds none either); ioredis keeps reconnecting (backoff up to 2 s)
 * by itself.
 */
export const GATEWAY_REDIS_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  commandTimeout: 1_000,
  connectionName: 'gateway',
};
