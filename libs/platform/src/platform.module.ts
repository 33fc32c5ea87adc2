import { DynamicModule, ExecutionContext, Global, Inject, Injectable, Module, Provider } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { stopTracing } from '@svc/tracing';
import type { Logger } from 'pino';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';
import { GatewayContextGuard, InternalAuth, InternalCaller, internalKeySetting, INTERNAL_CALLERS } from './internal-auth';
import { PUBLIC } from './public';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { APP_CONFIG, APP_LOGGER, PlatformConfig } from './tokens';

/** In a service behind the gateway: every route needs a signed context unless @Public(). */
@Injectable()
class BehindGatewayGuard extends GatewayContextGuard {
  constructor(
    @Inject(Reflector) private readonly routes: Reflector,
    @Inject(InternalAuth) auth: InternalAuth,
  ) {
    super(routes, auth);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const open = this.routes.getAllAndOverride<boolean | undefined>(PUBLIC, [context.getHandler(), context.getClass()]);
    return open ? true : super.canActivate(context);
  }
}

export interface PlatformOptions {
  config: PlatformConfig & { INTERNAL_PUBLIC_KEYS?: string };
  logger: Logger;
  /** The app: the `iss` of the calls it signs, the `aud` of the calls it accepts. */
  name: string;
  /** A service reached only through the gateway and other apps: every route needs a signed context unless @Public(). */
  behindGateway?: boolean;
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
      // Spans still buffered are exported before the process ends (nothing when tracing is off).
      { provide: Symbol('traces flushed on shutdown'), useValue: { onApplicationShutdown: () => stopTracing() } },
    ];
    const { name, config } = options;
    if (config.INTERNAL_PUBLIC_KEYS !== undefined) {
      const signingKey = (INTERNAL_CALLERS as readonly string[]).includes(name)
        ? (config as unknown as Record<string, string | undefined>)[internalKeySetting(name as InternalCaller)]
        : undefined;
      providers.push({ provide: InternalAuth, useValue: new InternalAuth({ name, signingKey, publicKeys: config.INTERNAL_PUBLIC_KEYS }) });
    }
    if (options.behindGateway) providers.push({ provide: APP_GUARD, useClass: BehindGatewayGuard });
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController],
      providers,
      exports: providers.filter((p) => !(typeof p === 'object' && 'provide' in p && p.provide === APP_GUARD)),
    };
  }
}
