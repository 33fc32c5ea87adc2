import { DynamicModule, Module } from '@nestjs/common';
import { ACCOUNTS_MIGRATIONS, ACCOUNTS_SCHEMA, AccountsRepository } from '@svc/accounts';
import { appStack } from '@svc/persistence';
import { closedOnShutdown } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ApiKeyAuthenticator } from './auth/authenticator';
import { GatewayConfig } from './gateway.config';
import { GatewayPipeline } from './gateway.pipeline';
import { IdempotencyStore } from './idempotency/idempotency';
import { OpenApiController } from './openapi/openapi.controller';
import { ChatProxy } from './proxy/chat-proxy';
import { ConsoleProxy } from './proxy/console-proxy';
import { UpstreamProxy } from './proxy/upstream-proxy';
import { WriteLimiter } from './rate-limit/write-limiter';
import { REDIS_CLIENT, RedisClient } from './redis/redis-client';
import { RedisModule } from './redis/redis.module';
import { WhoamiController } from './whoami.controller';

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ...appStack('gateway', { config, logger, schema: ACCOUNTS_SCHEMA, migrations: ACCOUNTS_MIGRATIONS }),
        RedisModule.forRoot(config.REDIS_URL),
      ],
      controllers: [WhoamiController, OpenApiController],
      providers: [
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
        closedOnShutdown(UpstreamProxy, ChatProxy, ConsoleProxy),
        GatewayPipeline,
      ],
    };
  }
}
