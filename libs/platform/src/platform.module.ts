import { DynamicModule, ExecutionContext, Global, Inject, Injectable, Module, Provider } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import type { Logger } from 'pino';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';
import { GatewayContextGuard, InternalAuth, InternalAuthSecrets } from './internal-auth';
import { PUBLIC } from './public';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { APP_CONFIG, APP_LOGGER, PlatformConfig } from './tokens';

/** The app's name as a service behind the gateway: the audience its contexts must be signed for. */
const GATEWAY_AUDIENCE = Symbol('GATEWAY_AUDIENCE');

/** In a service behind the gateway: every route needs the gateway's context unless @Public(). */
@Injectable()
class BehindGatewayGuard extends GatewayContextGuard {
  constructor(
    private readonly reflector: Reflector,
    auth: InternalAuth,
    @Inject(GATEWAY_AUDIENCE) audience: string,
  ) {
    super(auth, audience);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const open = this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC, [context.getHandler(), context.getClass()]);
    return open ? true : super.canActivate(context);
  }
}

export interface PlatformOptions {
  config: PlatformConfig & Partial<InternalAuthSecrets>;
  logger: Logger;
  /** A service reached only through the gateway: the audience a context must be signed for. */
  behindGateway?: string;
}

@Global()
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    const providers: Provider[] = [
      { provide: APP_CONFIG, useValue: options.config },
      { provide: APP_LOGGER, useValue: options.logger },
      ReadinessService,
      MetricsService,
    ];
    const { INTERNAL_AUTH_SECRET, INTERNAL_AUTH_SECRET_PREVIOUS } = options.config;
    if (INTERNAL_AUTH_SECRET) {
      providers.push({ provide: InternalAuth, useValue: new InternalAuth({ INTERNAL_AUTH_SECRET, INTERNAL_AUTH_SECRET_PREVIOUS }) });
    }
    const audience = options.behindGateway;
    if (audience) {
      providers.push({ provide: GATEWAY_AUDIENCE, useValue: audience }, { provide: APP_GUARD, useClass: BehindGatewayGuard });
    }
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController],
      providers,
      exports: providers.filter((p) => !(typeof p === 'object' && 'provide' in p && p.provide === APP_GUARD)),
    };
  }
}
