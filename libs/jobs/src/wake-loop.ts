/**
 * Runs `pass` when woken, one pass at a time: wake-ups that come while a pass runs make one more
 * pass after it (not one each, most of which would find nothing). A pass that returns true (a full
 * batch: more may wait) is followed by another at once. A pass that throws ends the loop; the error
 * goes to `onError` and the next wake-up starts again.
 */
export class WakeLoop {
  private busy = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<boolean | void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A pass now, or one more after the pass in flight (or after the current `hold`). */
  wake(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    void this.loop();
  }

  /**
   * Holds the loop without a pass (for work that must not overlap a pass); undefined while a pass
   * runs. The returned function lets go: a wake-up that came meanwhile then starts a pass.
   */
  hold(): (() => void) | undefined {
    if (this.stopped || this.busy) return undefined;
    this.busy = true;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.busy = false;
      if (this.again) this.wake();
    };
  }

  /** No pass starts from now on; the one in flight ends after its current batch. */
  stop(): void {
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    this.busy = true;
    try {
      do {
        this.again = false;
        if ((await this.pass()) === true) this.again = true;
      } while (this.again && !this.stopped);
    } catch (err) {
      this.onError(err);
    } finally {
      this.busy = false;
    }
  }
}

/**
 * Runs `task` every `intervalMs`, never two at once (a tick while one runs is skipped). The timer
 * does not keep the process alive; `stop` clears it and waits for the run in flight.
 */
export class Periodic {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.running ??= this.task().finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
