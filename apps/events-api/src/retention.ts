import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { EventsApiConfig } from './events-api.config';
import { EventLog } from './event-log';

/** The feed keeps EVENTS_RETENTION_DAYS of events; this job removes older ones. */
@Injectable()
export class RetentionJob implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly log: EventLog,
    @Inject(APP_CONFIG) private readonly config: EventsApiConfig,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.run(), this.config.EVENTS_PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  async run(): Promise<number> {
    try {
      const removed = await this.log.prune(this.config.EVENTS_RETENTION_DAYS);
      if (removed > 0) this.logger.info({ removed, retention_days: this.config.EVENTS_RETENTION_DAYS }, 'pruned old events');
      return removed;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'event prune failed');
      return 0;
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
