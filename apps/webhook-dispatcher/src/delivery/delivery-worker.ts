import { Inject, Injectable, Optional } from '@nestjs/common';
import { Claimed, LeaseWorker, nextAfterFailure, parseRetrySchedule, Reservation } from '@svc/jobs';
import { APP_LOGGER } from '@svc/platform';
import { inSpan, SpanKind, SpanStatusCode } from '@svc/tracing';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { SecretBox } from '../security/secret-box';
import { backgroundDrainMs, WEBHOOK_DISPATCHER_CONFIG, WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { ClaimedDelivery, CompletedAttempt, DeliveriesRepository, InsertLease, LeaseOptions } from './deliveries.repository';
import { DeliveryMetrics, recordAttempt } from './delivery-metrics';
import { DeliveryNotifications } from './delivery-notifications';
import { AttemptResult, WebhookSender } from './webhook-sender';

/** Room held for deliveries leased to this worker as they are made (`DeliveryWorker.reserve`). */
export interface DeliveryReservation extends Reservation<ClaimedDelivery> {
  lease: InsertLease;
}

/** Deliveries claimed in one query at most. */
const CLAIM_BATCH = 64;
const FLUSH_RETRY_MS = 1_000;

/** An attempt waiting for its result to be recorded. */
interface Finished {
  attempt: CompletedAttempt;
  recorded: () => void;
}

/**
 * The delivery loop of one process (a `LeaseWorker`): sends the deliveries it leased as they were
 * made (`reserve`) and claims due ones with the tuned claim of `DeliveriesRepository` (per-endpoint
 * and per-account caps) when woken: new deliveries it could not lease, a NOTIFY from a process that
 * does not deliver, its poll for due retries, or room freed while work was left behind. Records
 * results in batches: whatever finished while the previous batch was written goes in the next. An
 * attempt holds its room until its result is recorded.
 */
@Injectable()
export class DeliveryWorker extends LeaseWorker<ClaimedDelivery> {
  private readonly caps: Omit<LeaseOptions, 'token'>;
  private readonly retrySchedule: readonly number[];
  private flushing = false;
  private finished: Finished[] = [];

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    notifications: DeliveryNotifications,
    @Inject(WEBHOOK_DISPATCHER_CONFIG) config: WebhookDispatcherConfig,
    @Inject(APP_LOGGER) logger: Logger,
    @Optional() private readonly metrics?: DeliveryMetrics,
  ) {
    const leaseMs = backgroundDrainMs(config);
    super(
      {
        concurrency: config.WEBHOOK_CONCURRENCY,
        batch: CLAIM_BATCH,
        pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
        // On SIGTERM attempts in flight finish and are recorded, for up to a lease (then retried after it).
        drainMs: leaseMs,
        wakeOn: notifications,
        claimFailed: 'claiming deliveries failed; the poll retries',
        jobFailed: 'could not attempt a delivery',
      },
      logger.child({ component: 'delivery-worker' }),
    );
    this.caps = {
      leaseMs,
      maxInFlightPerEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      maxInFlightPerAccount: config.WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT,
    };
    this.retrySchedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
  }

  protected async claim(room: number): Promise<Claimed<ClaimedDelivery>> {
    const { deliveries, leftBehind } = await this.deliveries.claim({ ...this.caps, limit: room, token: randomUUID() });
    return { jobs: deliveries, leftBehind };
  }

  /**
   * Holds room for up to `wanted` deliveries about to be made, so that they are leased to this
   * process in the statement that makes them and sent at once (no NOTIFY, no claim).
   */
  override reserve(wanted: number): DeliveryReservation | undefined {
    const held = super.reserve(wanted);
    return held && { ...held, lease: { ...this.caps, token: randomUUID(), room: held.room } };
  }

  /** One attempt; resolves once its result is recorded. */
  protected async handle(delivery: ClaimedDelivery): Promise<void> {
    const result = await this.send(delivery);
    const next = result.delivered
      ? 'delivered'
      : delivery.single_attempt
        ? 'failed'
        : nextAfterFailure(this.retrySchedule, delivery.attempts + 1);
    recordAttempt(this.metrics, typeof next === 'string' ? next : 'retry', result.statusCode, result.durationMs);
    if (!result.delivered) {
      // One line per failed attempt: never the body, the answer or the secret.
      this.logger.warn(
        {
          endpoint_id: delivery.endpoint_id,
          event_id: delivery.event_id,
          delivery_id: delivery.id,
          attempt: delivery.attempts + 1,
          status_code: result.statusCode,
          error: result.error,
          duration_ms: result.durationMs,
          next: typeof next === 'string' ? next : `retry in ${next.retryInMs} ms`,
        },
        'webhook attempt failed',
      );
    }
    const attempt: CompletedAttempt = {
      deliveryId: delivery.id,
      accountId: delivery.account_id,
      claimToken: delivery.claim_token,
      outcome: typeof next === 'string' ? next : 'retry',
      retryInMs: typeof next === 'string' ? 0 : next.retryInMs,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      error: result.error,
      responseBody: result.responseBody,
    };
    await new Promise<void>((recorded) => {
      this.finished.push({ attempt, recorded });
      this.flush();
    });
  }

  /** One attempt, a span of the trace its event was recorded in (the request to the receiver is its child and carries it on). */
  private send(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const attributes = { 'svc.delivery_id': delivery.id, 'svc.endpoint_id': delivery.endpoint_id, 'svc.attempt': delivery.attempts + 1 };
    return inSpan(
      `webhook ${delivery.event_kind}`,
      { traceparent: delivery.traceparent, kind: SpanKind.PRODUCER, attributes },
      async (span) => {
        const result = await this.attempt(delivery);
        if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
        if (!result.delivered) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? `status ${result.statusCode}` });
        return result;
      },
    );
  }

  private async attempt(delivery: ClaimedDelivery): Promise<AttemptResult> {
    try {
      const previous = delivery.previous_secret_sealed;
      return await this.sender.send({
        url: delivery.url,
        secret: this.secrets.open(delivery.secret_sealed, delivery.account_id),
        ...(previous ? { previousSecret: this.secrets.open(previous, delivery.account_id) } : {}),
        eventId: delivery.event_id,
        kind: delivery.event_kind,
        body: delivery.body,
      });
    } catch (err) {
      // Not the receiver's doing (e.g. a secret sealed with another key): recorded, retried like any failure.
      this.logger.error({ err, delivery_id: delivery.id }, 'could not attempt a delivery');
      return {
        delivered: false,
        startedAt: new Date().toISOString(),
        durationMs: 0,
        statusCode: null,
        error: 'internal error before sending',
        responseBody: null,
      };
    }
  }

  /**
   * Records what finished, one batch at a time: what finishes meanwhile goes in the next. Until its
   * result is recorded an attempt still counts against the room of this process and the cap of its
   * endpoint, so the recording does not wait for the WAL flush (see ASYNC_COMMIT).
   */
  private flush(): void {
    if (this.flushing || this.finished.length === 0) return;
    this.flushing = true;
    const batch = this.finished;
    this.finished = [];
    this.deliveries.complete(batch.map((f) => f.attempt)).then(
      () => {
        this.flushing = false;
        this.flush();
        for (const f of batch) f.recorded();
      },
      (err: unknown) => {
        this.logger.error({ err, attempts: batch.length }, 'recording attempts failed; retrying');
        this.finished = [...batch, ...this.finished];
        setTimeout(() => {
          this.flushing = false;
          this.flush();
        }, FLUSH_RETRY_MS);
      },
    );
  }
}
