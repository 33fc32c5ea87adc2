import { clientOf } from '@svc/platform';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { RedisClient } from '../redis/redis-client';

export interface AuthFailureLimits {
  /** Failed authentications one client address may make per window. */
  failures: number;
  /** Counted from the address's first failure; whole seconds (at least one). */
  windowMs: number;
}

/**
 * Failed authentications per client address, so that a key guesser cannot make the gateway ask
 * the database for key after key. Counted in Redis, shared by every gateway process; while Redis
 * is unreachable, each process counts in its own memory instead (the same limits, per process).
 */
export class AuthFailureThrottle {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: RedisClient,
    private readonly limits: AuthFailureLimits,
  ) {
    const duration = Math.max(Math.ceil(limits.windowMs / 1000), 1);
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'ratelimit:auth-failures',
      points: limits.failures,
      duration,
      // Without Redis: straight to the in-process count, no waiting on a connection.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ points: limits.failures, duration }),
    });
  }

  /** Whole seconds until `address` may have a key looked up again; 0 when it may now. */
  async retryAfterSeconds(address: string): Promise<number> {
    const state = await this.limiter.get(clientOf(address));
    if (!state || state.consumedPoints < this.limits.failures) return 0;
    return Math.max(Math.ceil(state.msBeforeNext / 1000), 1);
  }

  /** Counts one failed authentication of `address`. */
  async recordFailure(address: string): Promise<void> {
    await this.limiter.penalty(clientOf(address));
  }
}
