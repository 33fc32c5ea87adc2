import { Inject, Injectable, InjectionToken, Type } from '@nestjs/common';
import { APP_CONFIG, APP_LOGGER } from '@svc/platform';
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

/**
 * An app's retention as an injectable class to extend: a `PruneJob` over the `Prunable` provided as
 * `source`, its options read from the app config, logging as `component`.
 */
export function PruneJobFor<C>(source: InjectionToken, component: string, options: (config: C) => PruneJobOptions): Type<PruneJob> {
  @Injectable()
  class Retention extends PruneJob {
    constructor(@Inject(source) prunable: Prunable, @Inject(APP_CONFIG) config: C, @Inject(APP_LOGGER) logger: Logger) {
      super(prunable, options(config), logger.child({ component }));
    }
  }
  return Retention;
}
