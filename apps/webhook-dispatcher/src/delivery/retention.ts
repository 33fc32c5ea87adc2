import type { Logger } from 'pino';
import { DeliveriesRepository } from './deliveries.repository';

/** Deliveries removed per statement, so that a large prune never holds locks for long. */
const PRUNE_BATCH = 5_000;

/** Finished deliveries and their attempts are kept `retentionDays` (like the feed); this job removes older ones. */
export class DeliveryRetentionJob {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly options: { retentionDays: number; intervalMs: number },
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), this.options.intervalMs);
    this.timer.unref();
  }

  async run(): Promise<number> {
    let removed = 0;
    try {
      let n: number;
      do {
        n = await this.deliveries.prune(this.options.retentionDays, PRUNE_BATCH);
        removed += n;
      } while (n === PRUNE_BATCH);
      if (removed > 0) this.logger.info({ removed, retention_days: this.options.retentionDays }, 'pruned old deliveries');
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'delivery prune failed');
    }
    return removed;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
