import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectLogger } from '@svc/platform';
import { execute, listen, withConnection } from '@svc/persistence';
import { WakeLoop } from '@svc/jobs';
import { Client, QueryResult } from 'pg';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import type { RelayMetrics } from './metrics';
import { outboxChannel } from './outbox';
import { Publisher } from './publisher';

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

interface OutboxRow {
  seq: string;
  id: string;
  exchange: string;
  routing_key: string;
  body: unknown;
}

const RETRY_AFTER_FAILURE_MS = 500;
/** Rounds in flight at once in one relay. */
const MAX_ROUNDS = 4;

/** Publishes a schema's outbox, woken by NOTIFY, `wake()` or a poll. See docs/adr/001-outbox-relay-notify.md */
@Injectable()
export class OutboxRelay {
  private listener?: Client;
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
    await this.listen();
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
    await this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl, application_name: `${this.options.schema}-outbox-relay` });
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      this.logger.warn({ err: err.message }, 'outbox listener lost its connection; polling until it is back');
      if (this.listener === client) this.listener = undefined;
      setTimeout(() => void this.reconnectListener(), RETRY_AFTER_FAILURE_MS * 4).unref();
    });
    try {
      await client.connect();
      await listen(client, [outboxChannel(this.options.schema)]);
      this.listener = client;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'outbox listener could not connect; polling meanwhile');
      await client.end().catch(() => undefined);
      setTimeout(() => void this.reconnectListener(), RETRY_AFTER_FAILURE_MS * 4).unref();
    }
  }

  private async reconnectListener(): Promise<void> {
    if (this.stopped || this.listener) return;
    await this.listen();
    this.wake();
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
            `BEGIN; SET LOCAL synchronous_commit = off; SELECT seq, id, exchange, routing_key, body FROM "${schema}".outbox
             WHERE sent_at IS NULL ORDER BY seq LIMIT ${Math.trunc(batchSize)} FOR UPDATE SKIP LOCKED`,
          )
          .finally(claimed)) as unknown as [QueryResult, QueryResult, QueryResult<OutboxRow>];
        const rows = claim.rows;
        if (rows.length === 0) {
          await client.query('COMMIT');
          return 0;
        }
        const published = this.metrics?.publishDuration.startTimer();
        await this.publisher.publish(rows.map((r) => ({ id: r.id, exchange: r.exchange, routingKey: r.routing_key, body: r.body })));
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
