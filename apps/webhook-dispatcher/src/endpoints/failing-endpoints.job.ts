import { Inject, Injectable } from '@nestjs/common';
import { Sweep } from '@svc/jobs';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { EndpointsRepository } from './endpoints.repository';
import { WEBHOOK_DISPATCHER_CONFIG } from '../webhook-dispatcher.config';

/** Checks at most this often, and at least every quarter of the window. */
const MAX_CHECK_INTERVAL_MS = 60_000;

/** How often endpoints are checked for a window of `windowMs`. */
function checkIntervalMs(windowMs: number): number {
  return Math.max(100, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(windowMs / 4)));
}

/**
 * Disables endpoints whose attempts have all failed for WEBHOOK_DISABLE_AFTER_MS: one statement
 * per check, in every process (the statement is idempotent, so several processes checking at once
 * disable each endpoint once).
 */
@Injectable()
export class FailingEndpointsJob extends Sweep {
  private readonly windowMs: number;

  constructor(
    private readonly endpoints: EndpointsRepository,
    @Inject(WEBHOOK_DISPATCHER_CONFIG) config: Pick<WebhookDispatcherConfig, 'WEBHOOK_DISABLE_AFTER_MS'>,
    @Inject(APP_LOGGER) logger: Logger,
  ) {
    super(
      checkIntervalMs(config.WEBHOOK_DISABLE_AFTER_MS),
      logger.child({ component: 'failing-endpoints' }),
      'checking for failing webhook endpoints failed',
    );
    this.windowMs = config.WEBHOOK_DISABLE_AFTER_MS;
  }

  protected async pass(): Promise<number> {
    const disabled = await this.endpoints.disableFailing(this.windowMs);
    for (const endpoint of disabled) {
      this.logger.warn(
        { endpoint_id: endpoint.id, account_id: endpoint.account_id, failing_for_ms: this.windowMs },
        'webhook endpoint disabled: every attempt failed',
      );
    }
    return disabled.length;
  }
}
