import type { Logger } from 'pino';
import { BackgroundJob } from './background-job';
import { Periodic } from './wake-loop';

/**
 * A pass every `intervalMs`, never two at once, in every replica (a pass must be safe to run
 * concurrently: SKIP LOCKED or an idempotent statement). A failed pass is logged as `failed` and
 * the next one tries again.
 */
export abstract class Sweep extends BackgroundJob {
  private readonly passes: Periodic;

  constructor(
    intervalMs: number,
    protected readonly logger: Logger,
    private readonly failed: string,
  ) {
    super();
    this.passes = new Periodic(() => this.run(), intervalMs);
  }

  /** One pass: what it did, as a count. */
  protected abstract pass(): Promise<number>;

  /** One pass now; resolves with its count, 0 when it failed (never rejects). */
  async run(): Promise<number> {
    try {
      return await this.pass();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, this.failed);
      return 0;
    }
  }

  start(): void {
    this.passes.start();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }
}
