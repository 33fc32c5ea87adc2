import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ACCOUNTS_MIGRATIONS, ACCOUNTS_SCHEMA, AccountsRepository } from '@svc/accounts';
import { appStack } from '@svc/persistence';
import { APP_LOGGER, ReadinessService } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AuthFailureThrottle } from './auth/auth-failure-throttle';
import { ApiKeyAuthenticator } from './auth/authenticator';
import { GatewayConfig } from './gateway.config';
import { GatewayPipeline } from './gateway.pipeline';
import { IdempotencyStore } from './idempotency/idempotency';
import { OpenApiController } from './openapi/openapi.controller';
import { ChatProxy } from './proxy/chat-proxy';
import { ConsoleProxy } from './proxy/console-proxy';
import { UpstreamProxy } from './proxy/upstream-proxy';
import { WriteLimiter } from './rate-limit/write-limiter';
import { createRedisClient, REDIS_CLIENT, RedisClient } from './redis/redis-client';
import { WhoamiController } from './whoami.controller';

/**
 * Redis and the upstream pools: reported for readiness, closed after the listener has drained.
 * Redis is reported, not required: without it reads go on and only writes are refused (503),
 * so a Redis outage must not take every gateway out of the load balancer.
 */
@Injectable()
class GatewayResources implements OnModuleInit, OnApplicationShutdown {
  private redisDown = false;
  private closing = false;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly proxy: UpstreamProxy,
    private readonly chat: ChatProxy,
    private readonly console: ConsoleProxy,
    private readonly readiness: ReadinessService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.readiness.register('redis', () => this.redis.ping(), { critical: false });
    // One line when Redis goes away and one when it is back (ioredis reconnects by itself).
    this.redis.on('error', (err: Error) => this.redisLost(err.message));
    this.redis.on('close', () => this.redisLost('connection closed'));
    this.redis.on('ready', () => {
      if (!this.redisDown) return;
      this.redisDown = false;
      this.logger.info('Redis available again: writes accepted');
    });
  }

  private redisLost(reason: string): void {
    if (this.redisDown || this.closing) return;
    this.redisDown = true;
    this.logger.error({ reason }, 'Redis unavailable: writes answer 503 until it is back; reads go on');
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    await Promise.all([this.proxy.close(), this.chat.close(), this.console.close()]);
    this.redis.disconnect();
  }
}

/** A Redis that accepts the connection but does not answer must not hold a write either. */
const REDIS_COMMAND_TIMEOUT_MS = 1_000;

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: GatewayModule,
      imports: appStack('gateway', { config, logger, schema: ACCOUNTS_SCHEMA, migrations: ACCOUNTS_MIGRATIONS }),
      controllers: [WhoamiController, OpenApiController],
      providers: [
        {
          provide: REDIS_CLIENT,
          // No offline queue and a command timeout: while Redis is away a write gets its 503 at once,
          // never a queued command; ioredis keeps reconnecting (backoff up to 2 s) by itself. One
          // server, through Sentinel, or a cluster: REDIS_URL says which.
          useFactory: () =>
            createRedisClient(config.REDIS_URL, {
              maxRetriesPerRequest: 1,
              enableOfflineQueue: false,
              commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
              connectionName: 'gateway',
            }),
        },
        {
          provide: AuthFailureThrottle,
          inject: [REDIS_CLIENT],
          useFactory: (redis: RedisClient) =>
            new AuthFailureThrottle(redis, { failures: config.AUTH_FAILURES_PER_ADDRESS, windowMs: config.AUTH_FAILURE_WINDOW_MS }),
        },
        {
          provide: ApiKeyAuthenticator,
          inject: [DataSource],
          useFactory: (db: DataSource) => new ApiKeyAuthenticator(new AccountsRepository(db), config.AUTH_CACHE_TTL_MS),
        },
        {
          provide: WriteLimiter,
          inject: [REDIS_CLIENT],
          useFactory: (redis: RedisClient) =>
            new WriteLimiter(redis, {
              perMinute: config.WRITE_LIMIT_PER_MINUTE,
              perHour: config.WRITE_LIMIT_PER_HOUR,
              minuteWindowMs: config.WRITE_LIMIT_MINUTE_WINDOW_MS,
              hourWindowMs: config.WRITE_LIMIT_HOUR_WINDOW_MS,
            }),
        },
        {
          provide: IdempotencyStore,
          inject: [REDIS_CLIENT],
          // A claim outlives the longest upstream call; a second request with the key waits as long as the first may take.
          useFactory: (redis: RedisClient) =>
            new IdempotencyStore(redis, { claimMs: config.UPSTREAM_TIMEOUT_MS + 5_000, waitMs: config.UPSTREAM_TIMEOUT_MS + 5_000 }),
        },
        { provide: UpstreamProxy, useFactory: () => new UpstreamProxy(config) },
        { provide: ChatProxy, useFactory: () => new ChatProxy(config) },
        { provide: ConsoleProxy, useFactory: () => new ConsoleProxy(config) },
        GatewayPipeline,
        GatewayResources,
      ],
    };
  }
}
