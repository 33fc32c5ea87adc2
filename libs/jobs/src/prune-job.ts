import { FactoryProvider, InjectionToken } from '@nestjs/common';
import type { Logger } from 'pino';
import { Sweep } from './sweep';

/** Rows one prune statement removes at most. */
export const PRUNE_BATCH = 5_000;

/** A repository that removes, one bounded batch per call, what is older than its retention. */
export interface Prunable {
  prune(retentionDays: number, batch: number): Promise<number>;
}

export interface PruneJobOptions {
  /** What is removed, for the log line: `pruned old ${what}`. */
  what: string;
  retentionDays: number;
  intervalMs: number;
  /** Rows one call of `prune` removes at most (PRUNE_BATCH unless set). */
  batch?: number;
}

/**
 * A service's retention: every `intervalMs` it removes what is older than `retentionDays`, one
 * bounded batch per statement (so a large backlog never holds locks for long) until a batch comes
 * back short. A failure is logged and the next interval tries again.
 */
export class PruneJob extends Sweep {
  constructor(
    private readonly source: Prunable,
    private readonly options: PruneJobOptions,
    logger: Logger,
  ) {
    super(options.intervalMs, logger, `pruning old ${options.what} failed`);
  }

  /** Rows removed; a failure is logged with what was removed before it. */
  protected async pass(): Promise<number> {
    const { what, retentionDays, batch = PRUNE_BATCH } = this.options;
    let removed = 0;
    try {
      let n: number;
      do {
        n = await this.source.prune(retentionDays, batch);
        removed += n;
      } while (n === batch);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, removed }, `pruning old ${what} failed`);
      return removed;
    }
    if (removed > 0) this.logger.info({ removed, retention_days: retentionDays }, `pruned old ${what}`);
    return removed;
  }
}

/** An app's retention as a Nest provider: a `PruneJob` over the `Prunable` provided as `source`. */
export function pruneJobProvider(source: InjectionToken, options: PruneJobOptions, logger: Logger): FactoryProvider<PruneJob> {
  return { provide: PruneJob, inject: [source], useFactory: (prunable: Prunable) => new PruneJob(prunable, options, logger) };
}
