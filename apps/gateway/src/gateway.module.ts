import { DynamicModule, Module } from '@nestjs/common';
import { ACCOUNTS_MIGRATIONS, ACCOUNTS_SCHEMA, AccountsRepository, AccountsService } from '@svc/accounts';
import { appStack } from '@svc/persistence';
import { closedOnShutdown } from '@svc/platform';
import type { Logger } from 'pino';
import { ApiKeyAuthenticator } from './auth/authenticator';
import { GATEWAY_CONFIG, GatewayConfig } from './gateway.config';
import { GatewayPipeline } from './gateway.pipeline';
import { IdempotencyStore } from './idempotency/idempotency';
import { ConsoleAccountsController } from './internal/console.controller';
import { McpSupportController } from './internal/mcp-support.controller';
import { WidgetsController } from './internal/widgets.controller';
import { OpenApiController } from './openapi/openapi.controller';
import { GatewayProxy } from './proxy/gateway-proxy';
import { WriteLimiter } from './rate-limit/write-limiter';
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
      controllers: [WhoamiController, OpenApiController, ConsoleAccountsController, McpSupportController, WidgetsController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        AccountsRepository,
        {
          provide: AccountsService,
          inject: [AccountsRepository],
          useFactory: (accounts: AccountsRepository) => new AccountsService(accounts),
        },
        ApiKeyAuthenticator,
        WriteLimiter,
        IdempotencyStore,
        GatewayPipeline,
        GatewayProxy,
        closedOnShutdown(GatewayProxy),
      ],
    };
  }
}
