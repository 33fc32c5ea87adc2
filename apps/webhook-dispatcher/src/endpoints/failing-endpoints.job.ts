import { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { Periodic } from '@svc/platform';
import type { Logger } from 'pino';
import { EndpointsRepository } from './endpoints.repository';

/** Checks at most this often, and at least every quarter of the window. */
const MAX_CHECK_INTERVAL_MS = 60_000;

/**
 * Disables endpoints whose attempts have all failed for `windowMs` (WEBHOOK_DISABLE_AFTER_MS):
 * one statement per check, in every process (the statement is idempotent, so several processes
 * checking at once disable each endpoint once). A failed check is logged and the next one retries.
 */
export class FailingEndpointsJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly checks: Periodic;

  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly windowMs: number,
    private readonly logger: Logger,
  ) {
    this.checks = new Periodic(() => this.run(), this.intervalMs);
  }

  get intervalMs(): number {
    return Math.max(100, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(this.windowMs / 4)));
  }

  async run(): Promise<void> {
    try {
      for (const endpoint of await this.endpoints.disableFailing(this.windowMs)) {
        this.logger.warn(
          { endpoint_id: endpoint.id, account_id: endpoint.account_id, failing_for_ms: this.windowMs },
          'webhook endpoint disabled: every attempt failed',
        );
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'checking for failing webhook endpoints failed');
    }
  }

  onApplicationBootstrap(): void {
    this.checks.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.checks.stop();
  }
}
