import { randomUUID } from 'node:crypto';
import { WakeLoop } from '@svc/platform';
import type { Logger } from 'pino';
import { SecretBox } from '../security/secret-box';
import { AttemptMetrics, recordAttempt } from './delivery-metrics';
import { ClaimedDelivery, CompletedAttempt, DeliveriesRepository, InsertLease } from './deliveries.repository';
import { nextAfterFailure } from './retry-schedule';
import { AttemptResult, WebhookSender } from './webhook-sender';

export interface WorkerOptions {
  /** Attempts in flight in this process; 0 disables delivery. */
  concurrency: number;
  maxInFlightPerEndpoint: number;
  maxInFlightPerAccount: number;
  /** How long a claim holds a delivery; must outlast an attempt and the recording of its result. */
  leaseMs: number;
  pollIntervalMs: number;
  retrySchedule: readonly number[];
}

/** Room held in a worker for deliveries leased to it as they are made (`DeliveryWorker.reserve`). */
export interface Reservation {
  lease: InsertLease;
  /** Sends what was leased and gives back the room left unused. Call it once, whatever happened. */
  settle(leased: readonly ClaimedDelivery[]): void;
}

/** Deliveries claimed in one query at most. */
const CLAIM_BATCH = 64;
const FLUSH_RETRY_MS = 1_000;

/**
 * The delivery loop of one process. Sends the deliveries this process leased as it made them
 * (`reserve`), and claims due ones when woken (new deliveries it could not lease, a NOTIFY from a
 * process that does not deliver, its poll for due retries, or finished attempts freeing room while
 * work was left behind). Records results in batches: whatever finished while the previous batch was
 * being written goes in the next one. Nothing is held only in memory: a delivery whose worker dies
 * is claimed again once its lease ends.
 */
export class DeliveryWorker {
  private inFlight = 0;
  /** Due deliveries may be waiting for this process to finish attempts. */
  private backlog = false;
  /**
   * Statements that lease deliveries (a claim, or an insert with a reservation, which holds the
   * loop) run one at a time: each then counts the leases the one before it made, so no endpoint
   * goes over its cap of attempts in flight from this process. Woken while leasing: claim once it is done.
   */
  private claims = this.claimLoop();
  private stopped = true;
  private flushing = false;
  private finished: CompletedAttempt[] = [];
  private poll?: NodeJS.Timeout;
  private drained?: () => void;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly options: WorkerOptions,
    private readonly logger: Logger,
    private readonly metrics?: AttemptMetrics,
  ) {}

  get enabled(): boolean {
    return this.options.concurrency > 0;
  }

  start(): void {
    if (!this.enabled) return;
    this.stopped = false;
    this.claims = this.claimLoop();
    this.poll = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.wake();
  }

  /** Looks for due deliveries now, or right after the leasing statement in flight. */
  wake(): void {
    if (!this.stopped) this.claims.wake();
  }

  private claimLoop(): WakeLoop {
    return new WakeLoop(
      () => this.claim(),
      (err) => this.logger.error({ err }, 'claiming deliveries failed; the poll retries'),
    );
  }

  /** One claim, as much as there is room for; true when it filled the room (more may be due). */
  private async claim(): Promise<boolean> {
    const room = Math.min(this.options.concurrency - this.inFlight, CLAIM_BATCH);
    if (room <= 0) {
      this.backlog = true;
      return false;
    }
    const { deliveries: claimed, leftBehind } = await this.deliveries.claim({
      limit: room,
      maxInFlightPerEndpoint: this.options.maxInFlightPerEndpoint,
      maxInFlightPerAccount: this.options.maxInFlightPerAccount,
      leaseMs: this.options.leaseMs,
      token: randomUUID(),
    });
    this.inFlight += claimed.length;
    // Work left behind waits for room: claim again as attempts finish. New work wakes the worker itself.
    this.backlog = leftBehind;
    for (const delivery of claimed) void this.attempt(delivery);
    return claimed.length === room;
  }

  /**
   * Holds room for up to `wanted` attempts (as much as is free) for deliveries about to be made, so
   * that they are leased to this process in the statement that makes them and sent at once (no
   * NOTIFY, no claim). Undefined when this process does not deliver, is stopping, has no room, or
   * is leasing already (the caller then makes the deliveries unleased and wakes the worker).
   */
  reserve(wanted: number): Reservation | undefined {
    const room = Math.min(wanted, this.options.concurrency - this.inFlight);
    if (this.stopped || room <= 0) return undefined;
    const letGo = this.claims.hold();
    if (!letGo) return undefined;
    this.inFlight += room;
    let settled = false;
    const { leaseMs, maxInFlightPerEndpoint, maxInFlightPerAccount } = this.options;
    return {
      lease: { token: randomUUID(), leaseMs, maxInFlightPerEndpoint, maxInFlightPerAccount, room },
      settle: (leased) => {
        if (settled) return;
        settled = true;
        for (const delivery of leased) void this.attempt(delivery);
        this.release(room - leased.length);
        letGo();
      },
    };
  }

  /** Room given back: whoever waits for it (stop, claims left behind) goes on. */
  private release(room: number): void {
    this.inFlight -= room;
    if (this.inFlight === 0) this.drained?.();
    if (this.backlog) this.wake();
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      const previous = delivery.previous_secret_sealed;
      result = await this.sender.send({
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
      result = {
        delivered: false,
        startedAt: new Date().toISOString(),
        durationMs: 0,
        statusCode: null,
        error: 'internal error before sending',
        responseBody: null,
      };
    }
    const next = result.delivered
      ? 'delivered'
      : delivery.single_attempt
        ? 'failed'
        : nextAfterFailure(this.options.retrySchedule, delivery.attempts + 1);
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
    this.finished.push({
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
    });
    this.flush();
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
    this.deliveries.complete(batch).then(
      () => {
        this.flushing = false;
        this.flush();
        this.release(batch.length);
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

  /** Stops claiming and waits (at most `graceMs`) for attempts in flight to finish and be recorded. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.claims.stop();
    clearInterval(this.poll);
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
