import { Inject, Injectable } from '@nestjs/common';
import { RedisClient } from '@svc/platform';
import type { GatewayConfig } from '../gateway.config';
import { REDIS_CLIENT } from '../redis/redis-client';
import { randomUUID } from 'node:crypto';
import { GATEWAY_CONFIG } from '../gateway.config';

/** The limits of the write limiter (and their sliding windows, which tests shorten). */
export type WriteLimitConfig = Pick<
  GatewayConfig,
  'WRITE_LIMIT_PER_MINUTE' | 'WRITE_LIMIT_PER_HOUR' | 'WRITE_LIMIT_MINUTE_WINDOW_MS' | 'WRITE_LIMIT_HOUR_WINDOW_MS'
>;

export interface LimitDecision {
  allowed: boolean;
  /** The binding window's limit, remaining writes and seconds until a slot frees (RateLimit-*). */
  limit: number;
  remaining: number;
  resetSeconds: number;
  /** When refused: whole seconds after which a write will be accepted (Retry-After, ≥ 1). */
  retryAfterSeconds: number;
}

/**
 * A sliding log per key in one sorted set (score = acceptance time in ms, by Redis's clock so every
 * gateway process agrees; member = a random id made here for each write, never anything the caller
 * sent, so that every accepted write is its own entry). Atomically: drop entries older than the long window, count both windows,
 * and record the write only if both have room, so refused writes never count. When refused, the
 * wait is exact: the time until enough of the oldest entries leave the full window(s).
 */
const SCRIPT = `
local key = KEYS[1]
local member = ARGV[1]
local minuteLimit, minuteWindow = tonumber(ARGV[2]), tonumber(ARGV[3])
local hourLimit, hourWindow = tonumber(ARGV[4]), tonumber(ARGV[5])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - hourWindow)
local hourCount = redis.call('ZCARD', key)
local minuteCount = redis.call('ZCOUNT', key, '(' .. (now - minuteWindow), '+inf')

local function waitFor(count, limit, window, from)
  if count < limit then return 0 end
  local oldest = redis.call('ZRANGEBYSCORE', key, from, '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
  return tonumber(oldest[2]) + window - now
end

local minuteWait = waitFor(minuteCount, minuteLimit, minuteWindow, '(' .. (now - minuteWindow))
local hourWait = waitFor(hourCount, hourLimit, hourWindow, '-inf')
local allowed = 0
if minuteWait == 0 and hourWait == 0 then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, hourWindow)
  allowed = 1
  minuteCount = minuteCount + 1
  hourCount = hourCount + 1
end

local function resetOf(window, from)
  local oldest = redis.call('ZRANGEBYSCORE', key, from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if oldest[2] == nil then return 0 end
  return tonumber(oldest[2]) + window - now
end

local minuteRemaining = math.max(minuteLimit - minuteCount, 0)
local hourRemaining = math.max(hourLimit - hourCount, 0)
if hourRemaining < minuteRemaining then
  return { allowed, hourLimit, hourRemaining, resetOf(hourWindow, '-inf'), math.max(minuteWait, hourWait) }
end
return { allowed, minuteLimit, minuteRemaining, resetOf(minuteWindow, '(' .. (now - minuteWindow)), math.max(minuteWait, hourWait) }
`;

type LimiterRedis = RedisClient & {
  consumeWrite(key: string, member: string, ...limits: number[]): Promise<[number, number, number, number, number]>;
};

@Injectable()
export class WriteLimiter {
  private readonly redis: LimiterRedis;

  constructor(
    @Inject(REDIS_CLIENT) redis: RedisClient,
    @Inject(GATEWAY_CONFIG) private readonly limits: WriteLimitConfig,
  ) {
    redis.defineCommand('consumeWrite', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as LimiterRedis;
  }

  /** Counts one write of `keyId` if it is within both limits. */
  async consume(keyId: string): Promise<LimitDecision> {
    const { WRITE_LIMIT_PER_MINUTE, WRITE_LIMIT_MINUTE_WINDOW_MS, WRITE_LIMIT_PER_HOUR, WRITE_LIMIT_HOUR_WINDOW_MS } = this.limits;
    const [allowed, limit, remaining, resetMs, waitMs] = await this.redis.consumeWrite(
      `ratelimit:writes:${keyId}`,
      randomUUID(),
      WRITE_LIMIT_PER_MINUTE,
      WRITE_LIMIT_MINUTE_WINDOW_MS,
      WRITE_LIMIT_PER_HOUR,
      WRITE_LIMIT_HOUR_WINDOW_MS,
    );
    return {
      allowed: allowed === 1,
      limit,
      remaining,
      resetSeconds: Math.max(Math.ceil(resetMs / 1000), 0),
      retryAfterSeconds: Math.max(Math.ceil(waitMs / 1000), 1),
    };
  }
}
