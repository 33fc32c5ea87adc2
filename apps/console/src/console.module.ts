import { DynamicModule, Module } from '@nestjs/common';
import { appStack } from '@svc/persistence';
import { closedOnShutdown, InternalAuth } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ConsoleConfig } from './console.config';
import { AuthController, InternalMembersController } from './members/auth.controller';
import { MembersRepository } from './members/members.repository';
import { MembersService } from './members/members.service';
import { ConsoleInternalGuard, OwnerGuard, SessionGuard } from './members/session.guard';
import { CONSOLE_MIGRATIONS, CONSOLE_SCHEMA } from './migrations';
import { Upstreams } from './upstreams/upstreams';

@Module({})
export class ConsoleModule {
  static forRoot(config: ConsoleConfig, logger: Logger): DynamicModule {
    return {
      module: ConsoleModule,
      imports: appStack('console', { config, logger, schema: CONSOLE_SCHEMA, migrations: CONSOLE_MIGRATIONS }),
      controllers: [AuthController, InternalMembersController],
      providers: [
        {
          provide: MembersService,
          inject: [DataSource],
          useFactory: (db: DataSource) =>
            new MembersService(new MembersRepository(db), config.APP_URL, config.SESSION_TTL_HOURS, {
              failures: config.SIGN_IN_FAILURES,
              emailFailures: config.SIGN_IN_EMAIL_FAILURES,
              windowS: config.SIGN_IN_WINDOW_S,
            }),
        },
        {
          provide: Upstreams,
          inject: [InternalAuth],
          useFactory: (auth: InternalAuth) => new Upstreams(config, auth, logger.child({ component: 'upstreams' })),
        },
        closedOnShutdown(Upstreams),
        SessionGuard,
        OwnerGuard,
        ConsoleInternalGuard,
      ],
    };
  }
}
