import { DynamicModule, Module } from '@nestjs/common';
import { appStack } from '@svc/persistence';
import { closedOnShutdown, componentLoggers } from '@svc/platform';
import type { Logger } from 'pino';
import { CONSOLE_CONFIG, ConsoleConfig } from './console.config';
import { AuthController, InternalMembersController } from './members/auth.controller';
import { LiveResponses, SessionNotifications } from './members/live-responses';
import { MembersRepository } from './members/members.repository';
import { MembersService } from './members/members.service';
import { ConsoleInternalGuard, OwnerGuard, PersonGuard, SessionGuard } from './members/session.guard';
import { CONSOLE_MIGRATIONS, CONSOLE_SCHEMA } from './migrations';
import { FrontEnd, FrontEndController } from './static/spa';
import { ServiceRoutesController } from './upstreams/service-routes';
import { TeamActionsController } from './upstreams/team-actions';
import { Upstreams } from './upstreams/upstreams';

@Module({})
export class ConsoleModule {
  static forRoot(config: ConsoleConfig, logger: Logger): DynamicModule {
    return {
      module: ConsoleModule,
      imports: appStack('console', { config, logger, schema: CONSOLE_SCHEMA, migrations: CONSOLE_MIGRATIONS }),
      controllers: [AuthController, InternalMembersController, ServiceRoutesController, TeamActionsController, FrontEndController],
      providers: [
        { provide: CONSOLE_CONFIG, useValue: config },
        MembersRepository,
        MembersService,
        SessionNotifications,
        LiveResponses,
        Upstreams,
        { provide: FrontEnd, useFactory: () => new FrontEnd() },
        ...componentLoggers('upstreams'),
        closedOnShutdown(Upstreams),
        PersonGuard,
        SessionGuard,
        OwnerGuard,
        ConsoleInternalGuard,
      ],
    };
  }
}
