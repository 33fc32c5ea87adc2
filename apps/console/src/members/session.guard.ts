import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { GatewayContextGuard } from '@svc/platform';
import type { FastifyRequest } from 'fastify';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { MemberSession } from './members.repository';
import { MembersService } from './members.service';
import { authenticate, authenticatePerson, requireOwner } from './session';

/** A signed-in person, before or after choosing an account (and, for a write, the session's CSRF token); see `authenticatePerson`. */
@Injectable()
export class PersonGuard implements CanActivate {
  private readonly origin: string;

  constructor(
    private readonly members: MembersService,
    @Inject(CONSOLE_CONFIG) config: ConsoleConfig,
  ) {
    this.origin = new URL(config.APP_URL).origin;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.check(context.switchToHttp().getRequest<FastifyRequest>(), this.members, this.origin);
    return true;
  }

  protected check(request: FastifyRequest, members: MembersService, appOrigin: string): Promise<unknown> {
    return authenticatePerson(request, members, appOrigin);
  }
}

/** A signed-in member acting in an account (and, for a write, the session's CSRF token); see `authenticate`. */
@Injectable()
export class SessionGuard extends PersonGuard {
  protected override check(request: FastifyRequest, members: MembersService, appOrigin: string): Promise<unknown> {
    return authenticate(request, members, appOrigin);
  }
}

/** A signed-in owner of the account (an agent: 403 `forbidden`, before the body is checked). */
@Injectable()
export class OwnerGuard extends SessionGuard {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    requireOwner(context.switchToHttp().getRequest<FastifyRequest & { member: MemberSession }>().member);
    return true;
  }
}

/** The console's internal routes: a context signed for audience `console` by a caller the route names (`@InternalCallers`). */
@Injectable()
export class ConsoleInternalGuard extends GatewayContextGuard {}
