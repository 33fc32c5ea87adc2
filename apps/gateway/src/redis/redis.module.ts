import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_LOGGER, createRedisClient, ReadinessService, RedisClient } from '@svc/platform';
import type { Logger } from 'pino';
import { GATEWAY_REDIS_OPTIONS, REDIS_CLIENT } from './redis-client';

/**
 * The client reported for readiness and closed after the listener has drained. Redis is reported,
 * not required: without it reads go on and only writes are refused (503), so a Redis outage must
 * not take every gateway out of the load balancer.
 */
@Injectable()
class RedisLifecycle implements OnModuleInit, OnApplicationShutdown {
  private down = false;
  private closing = false;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly readiness: ReadinessService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {
    // One line when Redis goes away and one when it is back (ioredis reconnects by itself). Listening
    // from the start: an error event nobody listens to is printed by ioredis, not logged.
    this.redis.on('error', (err: Error) => this.lost(err.message));
    this.redis.on('close', () => this.lost('connection closed'));
    this.redis.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.logger.info('Redis available again: writes accepted');
    });
  }

  onModuleInit(): void {
    this.readiness.register('redis', () => this.redis.ping(), { critical: false });
  }

  private lost(reason: string): void {
    if (this.down || this.closing) return;
    this.down = true;
    this.logger.error({ reason }, 'Redis unavailable: writes answer 503 until it is back; reads go on');
  }

  onApplicationShutdown(): void {
    this.closing = true;
    this.redis.disconnect();
  }
}

/** The gateway's one Redis client (`REDIS_CLIENT`) for REDIS_URL: one server, through Sentinel, or a cluster. */
@Module({})
export class RedisModule {
  static forRoot(url: string): DynamicModule {
    return {
      module: RedisModule,
      providers: [{ provide: REDIS_CLIENT, useFactory: () => createRedisClient(url, GATEWAY_REDIS_OPTIONS) }, RedisLifecycle],
      exports: [REDIS_CLIENT],
    };
  }
}
