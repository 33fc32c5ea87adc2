import { ApiError } from '@svc/platform';

/**
 * A cap on password hashes (argon2id: 64 MiB and a thread each) in flight in this process: past
 * `limit`, a hash waits its turn up to `waitMs`, then the request gets 503 `unavailable` with
 * `Retry-After: 1` (the machine is busy, not the member's fault). See docs/adr/010-console-sign-in-limits.md
 */
export class HashGate {
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly waitMs: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.inFlight -= 1;
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.limit) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(turn), 1);
        reject(
          new ApiError('unavailable', 'The console is busy checking passwords; retry in a moment.', undefined, { 'retry-after': '1' }),
        );
      }, this.waitMs);
      this.queue.push(turn);
    });
  }
}
