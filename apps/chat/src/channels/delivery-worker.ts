import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectLogger } from '@svc/platform';
import { Periodic } from '@svc/jobs';
import type { Logger } from 'pino';
import { retryDelayMs } from './channel-rules';
import { DeliveriesRepository, Delivery } from './deliveries.repository';
import { EmailSender, SendResult, WhatsappProvider } from './senders';
import { DELIVERY_INTERVAL_MS, DELIVERY_RETRY_BASE_MS, WHATSAPP_PROVIDER } from '../chat.tokens';

const BATCH = 20;

/**
 * Sends what the chat queued (WhatsApp messages, confirmation emails). A provider that is down
 * gets the same delivery again later, with a growing delay; only what it refuses for good is
 * parked. Any replica may run it: claims use SKIP LOCKED.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly passes: Periodic;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    @Inject(WHATSAPP_PROVIDER) private readonly whatsapp: WhatsappProvider,
    private readonly email: EmailSender,
    @Inject(DELIVERY_INTERVAL_MS) intervalMs: number,
    @Inject(DELIVERY_RETRY_BASE_MS) private readonly retryBaseMs: number,
    @InjectLogger('deliveries') private readonly logger: Logger,
  ) {
    this.passes = new Periodic(() => this.run(), intervalMs);
  }

  /** One pass; resolves with how many deliveries were attempted (never rejects). */
  async run(): Promise<number> {
    try {
      const due = await this.deliveries.claimDue(BATCH);
      await Promise.all(due.map((delivery) => this.attempt(delivery)));
      return due.length;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'delivery pass failed; next pass retries');
      return 0;
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { payload } = delivery;
    const result: SendResult =
      payload.kind === 'whatsapp' ? await this.whatsapp.send(payload.phoneNumberId, payload.message) : await this.email.send(payload.email);
    const log = { delivery_id: delivery.id, kind: payload.kind, attempts: delivery.attempts };
    if (result.ok) {
      await this.deliveries.markSent(delivery.id, result.providerId);
      this.logger.info(log, 'delivery sent');
    } else if (result.permanent) {
      await this.deliveries.park(delivery.id, result.error);
      this.logger.warn({ ...log, error: result.error }, 'delivery refused for good; parked');
    } else {
      const delayMs = retryDelayMs(delivery.attempts, this.retryBaseMs);
      await this.deliveries.retryLater(delivery.id, delayMs, result.error);
      this.logger.warn({ ...log, error: result.error, retry_in_ms: delayMs }, 'delivery failed; retried later');
    }
  }

  onApplicationBootstrap(): void {
    this.passes.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.passes.stop();
    this.email.close();
  }
}
