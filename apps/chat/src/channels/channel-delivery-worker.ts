import { Inject, Injectable } from '@nestjs/common';
import { Claimed, LeaseWorker } from '@svc/jobs';
import { InjectLogger } from '@svc/platform';
import type { Logger } from 'pino';
import { retryDelayMs } from './channel-rules';
import { ChannelDeliveriesRepository, ChannelDelivery } from './channel-deliveries.repository';
import { EmailSender, SendResult, WhatsappProvider } from './senders';
import { DELIVERY_INTERVAL_MS, DELIVERY_RETRY_BASE_MS, WHATSAPP_PROVIDER } from '../chat.tokens';

const BATCH = 20;

/**
 * Sends what the chat queued (WhatsApp messages, confirmation emails). A provider that is down
 * gets the same delivery again later, with a growing delay; only what it refuses for good is
 * parked. Any replica may run it: claims use SKIP LOCKED (a claim leases a delivery for a minute).
 */
@Injectable()
export class ChannelDeliveryWorker extends LeaseWorker<ChannelDelivery> {
  constructor(
    private readonly deliveries: ChannelDeliveriesRepository,
    @Inject(WHATSAPP_PROVIDER) private readonly whatsapp: WhatsappProvider,
    private readonly email: EmailSender,
    @Inject(DELIVERY_INTERVAL_MS) intervalMs: number,
    @Inject(DELIVERY_RETRY_BASE_MS) private readonly retryBaseMs: number,
    @InjectLogger('deliveries') logger: Logger,
  ) {
    super(
      {
        concurrency: BATCH,
        batch: BATCH,
        pollIntervalMs: intervalMs,
        claimFailed: 'delivery pass failed; next pass retries',
        jobFailed: 'delivery failed; next pass retries',
      },
      logger,
    );
  }

  protected async claim(room: number): Promise<Claimed<ChannelDelivery>> {
    return { jobs: await this.deliveries.claimDue(room) };
  }

  protected handle(delivery: ChannelDelivery): Promise<void> {
    return this.attempt(delivery);
  }

  /** Stops claiming, waits for the sends in flight, then closes the SMTP pool. */
  override async stop(): Promise<void> {
    await super.stop();
    this.email.close();
  }

  private async attempt(delivery: ChannelDelivery): Promise<void> {
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
}
