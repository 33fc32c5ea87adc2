import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { PersistenceModule } from '@svc/persistence';
import { InternalAuth, PlatformModule } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ConsoleConfig } from './console.config';
import { AuthController, InternalMembersController } from './members/auth.controller';
import { MembersRepository } from './members/members.repository';
import { MembersService } from './members/members.service';
import { ConsoleInternalGuard, SessionGuard } from './members/session.guard';
import { CONSOLE_MIGRATIONS, CONSOLE_SCHEMA } from './migrations';
import { Upstreams } from './services/upstreams';

/** The HTTP pools to the services, closed after the listener has drained. */
@Injectable()
class UpstreamsLifecycle implements OnApplicationShutdown {
  constructor(@Inject(Upstreams) private readonly upstreams: Upstreams) {}

  onApplicationShutdown(): Promise<void> {
    return this.upstreams.close();
  }
}

@Module({})
export class ConsoleModule {
  static forRoot(config: ConsoleConfig, logger: Logger): DynamicModule {
    return {
      module: ConsoleModule,
      imports: [
        PlatformModule.forRoot({ config, logger }),
        PersistenceModule.forApp('console', config, CONSOLE_SCHEMA, CONSOLE_MIGRATIONS),
      ],
      controllers: [AuthController, InternalMembersController],
      providers: [
        {
          provide: MembersService,
          inject: [DataSource],
          useFactory: (db: DataSource) =>
            new MembersService(new MembersRepository(db), config.APP_URL, config.SESSION_TTL_HOURS, {
              failures: config.SIGN_IN_FAILURES,
              windowS: config.SIGN_IN_WINDOW_S,
            }),
        },
        {
          provide: Upstreams,
          inject: [InternalAuth],
          useFactory: (auth: InternalAuth) => new Upstreams(config, auth, logger.child({ component: 'upstreams' })),
        },
        UpstreamsLifecycle,
        SessionGuard,
        ConsoleInternalGuard,
      ],
    };
  }
}
