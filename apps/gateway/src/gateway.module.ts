import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ACCOUNTS_MIGRATIONS, ACCOUNTS_SCHEMA, AccountsRepository } from '@svc/accounts';
import { PersistenceModule } from '@svc/persistence';
import { PlatformModule, ReadinessService } from '@svc/platform';
import Redis from 'ioredis';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ApiKeyAuthenticator } from './auth/authenticator';
import { GatewayConfig } from './gateway.config';
import { GatewayPipeline } from './gateway.pipeline';
import { OpenApiController } from './openapi/openapi.controller';
import { ChatProxy } from './proxy/chat-proxy';
import { UpstreamProxy } from './proxy/upstream-proxy';
import { WriteLimiter } from './rate-limit/write-limiter';
import { WhoamiController } from './whoami.controller';

/** Redis and the upstream pools: checked for readiness, closed after the listener has drained. */
@Injectable()
class GatewayResources implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(Redis) private readonly redis: Redis,
    private readonly proxy: UpstreamProxy,
    private readonly chat: ChatProxy,
    private readonly readiness: ReadinessService,
  ) {}

  onModuleInit(): void {
    this.readiness.register('redis', () => this.redis.ping());
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.proxy.close(), this.chat.close()]);
    this.redis.disconnect();
  }
}

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        PlatformModule.forRoot({ config, logger }),
        PersistenceModule.forRoot({
          schema: ACCOUNTS_SCHEMA,
          url: config.DATABASE_URL,
          migrations: ACCOUNTS_MIGRATIONS,
          poolSize: config.DATABASE_POOL_SIZE,
          migrateOnStart: config.MIGRATE_ON_START,
          applicationName: 'gateway',
        }),
      ],
      controllers: [WhoamiController, OpenApiController],
      providers: [
        {
          provide: Redis,
          useFactory: () => new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectionName: 'gateway' }),
        },
        {
          provide: ApiKeyAuthenticator,
          inject: [DataSource],
          useFactory: (db: DataSource) => new ApiKeyAuthenticator(new AccountsRepository(db), config.AUTH_CACHE_TTL_MS),
        },
        {
          provide: WriteLimiter,
          inject: [Redis],
          useFactory: (redis: Redis) =>
            new WriteLimiter(redis, {
              perMinute: config.WRITE_LIMIT_PER_MINUTE,
              perHour: config.WRITE_LIMIT_PER_HOUR,
              minuteWindowMs: config.WRITE_LIMIT_MINUTE_WINDOW_MS,
              hourWindowMs: config.WRITE_LIMIT_HOUR_WINDOW_MS,
            }),
        },
        { provide: UpstreamProxy, useFactory: () => new UpstreamProxy(config) },
        { provide: ChatProxy, useFactory: () => new ChatProxy(config) },
        GatewayPipeline,
        GatewayResources,
      ],
    };
  }
}
