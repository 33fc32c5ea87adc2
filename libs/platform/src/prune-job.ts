import { BeforeApplicationShutdown, FactoryProvider, InjectionToken, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { Periodic } from './wake-loop';

export interface PruneJobOptions {
  /** What is removed, for the log line: `pruned old ${what}`. */
  what: string;
  retentionDays: number;
  intervalMs: number;
  /** Rows one call of `prune` removes at most. */
  batch: number;
  /** Removes at most `batch` rows older than `retentionDays`; returns how many it removed. */
  prune: (retentionDays: number, batch: number) => Promise<number>;
}

/**
 * A service's retention: every `intervalMs` it removes what is older than `retentionDays`, one
 * bounded batch per statement (so a large backlog never holds locks for long) until a batch comes
 * back short. A failure is logged and the next interval tries again. As a Nest provider it starts
 * with the application and stops before it shuts down.
 */
export class PruneJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly passes: Periodic;

  constructor(
    private readonly options: PruneJobOptions,
    private readonly logger: Logger,
  ) {
    this.passes = new Periodic(() => this.run(), options.intervalMs);
  }

  start(): void {
    this.passes.start();
  }

  /** One pass; resolves with the number of rows removed (never rejects). */
  async run(): Promise<number> {
    const { what, retentionDays, batch, prune } = this.options;
    let removed = 0;
    try {
      let n: number;
      do {
        n = await prune(retentionDays, batch);
        removed += n;
      } while (n === batch);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, removed }, `pruning old ${what} failed`);
      return removed;
    }
    if (removed > 0) this.logger.info({ removed, retention_days: retentionDays }, `pruned old ${what}`);
    return removed;
  }

  /** Stops the timer and waits for the pass in flight. */
  stop(): Promise<void> {
    return this.passes.stop();
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}

/** Rows one prune statement removes at most. */
export const PRUNE_BATCH = 5_000;

/** A repository that removes, one bounded batch per call, what is older than its retention. */
export interface Prunable {
  prune(retentionDays: number, batch: number): Promise<number>;
}

/** An app's retention as a Nest provider: a `PruneJob` over the `Prunable` provided as `source`, PRUNE_BATCH rows at a time. */
export function pruneJobProvider(
  source: InjectionToken,
  options: Omit<PruneJobOptions, 'batch' | 'prune'>,
  logger: Logger,
): FactoryProvider<PruneJob> {
  return {
    provide: PruneJob,
    inject: [source],
    useFactory: (prunable: Prunable) =>
      new PruneJob({ ...options, batch: PRUNE_BATCH, prune: (days, batch) => prunable.prune(days, batch) }, logger),
  };
}
