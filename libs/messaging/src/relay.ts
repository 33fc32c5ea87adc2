import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectLogger } from '@svc/platform';
import { Columns, execute, withConnection } from '@svc/persistence';
import { PgNotifications, WakeLoop } from '@svc/jobs';
import type { QueryResult } from 'pg';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import type { RelayMetrics } from './metrics';
import { outboxChannel } from './outbox';
import { Publisher } from './publisher';
import type { Outbox } from './schema.generated';

export interface RelayOptions {
  schema: string;
  /** PostgreSQL URL for the LISTEN connection (the pool's connections are not held). */
  databaseUrl: string;
  batchSize: number;
  pollIntervalMs: number;
}

/** The relay's `RelayOptions` in an app (MessagingModule.forRoot's `outbox`). */
export const RELAY_OPTIONS = Symbol('RELAY_OPTIONS');
/** The relay's `RelayMetrics` in an app. */
export const RELAY_METRICS = Symbol('RELAY_METRICS');

/** A row the relay publishes (the outbox table is the same in every schema that has one). */
type OutboxRow = Columns<Outbox, 'seq' | 'id' | 'exchange' | 'routing_key' | 'body' | 'traceparent'>;

const RETRY_AFTER_FAILURE_MS = 500;
/** Wait before the LISTEN connection is tried again (the poll publishes meanwhile). */
const LISTEN_RETRY_MS = RETRY_AFTER_FAILURE_MS * 4;
/** Rounds in flight at once in one relay. */
const MAX_ROUNDS = 4;

/** Publishes a schema's outbox, woken by NOTIFY, `wake()` or a poll. See docs/adr/001-outbox-relay-notify.md */
@Injectable()
export class OutboxRelay {
  private listener?: PgNotifications;
  private pollTimer?: NodeJS.Timeout;
  private readonly rounds = new Set<Promise<void>>();
  /** A round ended with more to do (a full batch, a failure) or another was wanted while MAX_ROUNDS ran. */
  private more = false;
  /** Starts rounds, one claim at a time (present while started). */
  private claims?: WakeLoop;
  private stopped = true;

  constructor(
    private readonly db: DataSource,
    private readonly publisher: Publisher,
    @InjectLogger('outbox-relay') private readonly logger: Logger,
    @Inject(RELAY_OPTIONS) private readonly options: RelayOptions,
    @Optional() @Inject(RELAY_METRICS) private readonly metrics?: RelayMetrics,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.claims = new WakeLoop(
      () => this.startRound(),
      (err) => this.logger.warn({ err: (err as Error).message }, 'outbox round failed to start'),
    );
    await this.removeSent();
    const { schema, databaseUrl } = this.options;
    this.listener = new PgNotifications(
      {
        databaseUrl,
        channel: outboxChannel(schema),
        applicationName: `${schema}-outbox-relay`,
        reconnectDelayMs: LISTEN_RETRY_MS,
        lostLine: 'outbox listener lost its connection; polling until it is back',
        failedLine: 'outbox listener could not connect; polling meanwhile',
      },
      this.logger,
    );
    // Each NOTIFY, and each reconnection (what was written meanwhile waits for a round).
    this.listener.onNotify(() => this.wake());
    await this.listener.open();
    this.pollTimer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
  }

  /** Asks for a round; wake-ups during a claim start one round after it, not one each. */
  wake(): void {
    if (!this.stopped) this.claims?.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.claims?.stop();
    clearInterval(this.pollTimer);
    await Promise.all(this.rounds);
    await this.listener?.close();
    this.listener = undefined;
  }

  /** Starts a round unless MAX_ROUNDS are in flight (then one more runs when one ends); resolves once its claim is answered. */
  private async startRound(): Promise<void> {
    if (this.rounds.size >= MAX_ROUNDS) {
      this.more = true;
      return;
    }
    let claimed!: () => void;
    const claim = new Promise<void>((resolve) => (claimed = resolve));
    const round = this.runRound(claimed).finally(() => {
      this.rounds.delete(round);
      if (this.more) {
        this.more = false;
        this.wake();
      }
    });
    this.rounds.add(round);
    await claim;
  }

  /** Publishes a batch; a full batch means more may wait, so another round follows. */
  private async runRound(claimed: () => void): Promise<void> {
    try {
      if (!this.publisher.isReady) return;
      if ((await this.round(claimed)) === this.options.batchSize) this.more = true;
    } catch (err) {
      claimed();
      this.logger.warn({ err: (err as Error).message }, 'outbox round failed; retrying');
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_FAILURE_MS));
      this.more = true;
    } finally {
      claimed();
    }
  }

  /** One round in two round trips, committed asynchronously; calls `claimed` once its claim is answered. */
  private async round(claimed: () => void): Promise<number> {
    const { schema, batchSize } = this.options;
    return withConnection(this.db, async (client) => {
      try {
        const [, , claim] = (await client
          .query(
            `BEGIN; SET LOCAL synchronous_commit = off; SELECT seq, id, exchange, routing_key, body, traceparent FROM "${schema}".outbox
             WHERE sent_at IS NULL ORDER BY seq LIMIT ${Math.trunc(batchSize)} FOR UPDATE SKIP LOCKED`,
          )
          .finally(claimed)) as unknown as [QueryResult, QueryResult, QueryResult<OutboxRow>];
        const rows = claim.rows;
        if (rows.length === 0) {
          await client.query('COMMIT');
          return 0;
        }
        const published = this.metrics?.publishDuration.startTimer();
        await this.publisher.publish(
          rows.map((r) => ({ id: r.id, exchange: r.exchange, routingKey: r.routing_key, body: r.body, traceparent: r.traceparent })),
        );
        published?.();
        this.metrics?.published.inc(rows.length);
        // seq is a bigint PostgreSQL returned (digits only), so the list is written into the statement.
        await client.query(`DELETE FROM "${schema}".outbox WHERE seq = ANY('{${rows.map((r) => r.seq).join(',')}}'::bigint[]); COMMIT`);
        return rows.length;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /** Deletes rows an earlier version kept as sent (`sent_at`): no outbox keeps what it published. */
  private async removeSent(): Promise<void> {
    try {
      await execute(this.db, `DELETE FROM "${this.options.schema}".outbox WHERE sent_at IS NOT NULL`);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not remove published outbox rows; the next start tries again');
    }
  }
}
