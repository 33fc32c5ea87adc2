import type { Logger } from 'pino';
import { BackgroundJob } from './background-job';
import type { PgNotifications } from './pg-notifications';
import { WakeLoop } from './wake-loop';

/** What one claim leased to this process. */
export interface Claimed<T> {
  jobs: T[];
  /** Due jobs were left for a cap (not for lack of room here): claim again as room frees. */
  leftBehind?: boolean;
}

export interface LeaseWorkerOptions {
  /** Jobs in flight in this process at once; 0 runs none. */
  concurrency: number;
  /** Jobs one claim takes at most. */
  batch: number;
  /** How often it claims unwoken: retries that came due, leases that ran out, missed wake-ups. */
  pollIntervalMs: number;
  /** How long `stop` waits for jobs in flight; unset: until they finish. */
  drainMs?: number;
  /** Wakes the worker on NOTIFY (it starts and closes with the worker). */
  wakeOn?: PgNotifications;
  /** Log lines of a failed claim and of a job that threw. */
  claimFailed: string;
  jobFailed: string;
}

/** Room held for jobs about to be leased elsewhere (in the statement that makes them). */
export interface Reservation<T> {
  room: number;
  /** Runs what was leased and gives back the room left unused. Once, whatever happened. */
  settle(leased: readonly T[]): void;
}

/**
 * Claims leased jobs (SKIP LOCKED in `claim`, so any replica takes any job) and runs up to
 * `concurrency` of them at once. Claims run one at a time; a full claim is followed by another,
 * and a worker that ran out of room claims again as jobs finish. Woken by `wake` (NOTIFY, the
 * writer) or its poll. Nothing lives only in memory: a job whose process dies is claimed again when
 * its lease runs out.
 */
export abstract class LeaseWorker<T> extends BackgroundJob {
  private inFlight = 0;
  /** Due jobs may wait for room here. */
  private backlog = false;
  private stopped = true;
  private claims = this.claimLoop();
  private poll?: NodeJS.Timeout;
  private readonly tracked = new Set<Promise<void>>();
  private drained?: () => void;

  constructor(
    private readonly options: LeaseWorkerOptions,
    protected readonly logger: Logger,
  ) {
    super();
  }

  /** Leases up to `room` due jobs to this process. */
  protected abstract claim(room: number): Promise<Claimed<T>>;

  /** Runs one leased job; its room is free again once this settles. */
  protected abstract handle(job: T): Promise<void>;

  get enabled(): boolean {
    return this.options.concurrency > 0;
  }

  start(): void {
    if (!this.enabled) return;
    this.stopped = false;
    this.claims = this.claimLoop();
    this.poll = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.poll.unref();
    const notifications = this.options.wakeOn;
    if (notifications) {
      notifications.onNotify(() => this.wake());
      notifications.start();
    }
    this.wake();
  }

  /** Claims now, or right after the claim (or reservation) in flight. */
  wake(): void {
    if (!this.stopped) this.claims.wake();
  }

  /** One claim and its jobs, awaited (tests, tools): how many jobs it ran. */
  async runOnce(): Promise<number> {
    const room = this.room();
    if (room <= 0) return 0;
    const { jobs } = await this.claim(room);
    this.inFlight += jobs.length;
    await Promise.all(jobs.map((job) => this.run(job)));
    return jobs.length;
  }

  /**
   * Holds room for up to `wanted` jobs about to be made and leased to this process by the caller's
   * statement (no claim, no NOTIFY). Undefined when stopped, full or claiming: the caller then
   * makes them unleased and wakes the worker.
   */
  reserve(wanted: number): Reservation<T> | undefined {
    const room = Math.min(wanted, this.options.concurrency - this.inFlight);
    if (this.stopped || room <= 0) return undefined;
    const letGo = this.claims.hold();
    if (!letGo) return undefined;
    this.inFlight += room;
    let settled = false;
    return {
      room,
      settle: (leased) => {
        if (settled) return;
        settled = true;
        for (const job of leased) void this.run(job);
        this.release(room - leased.length);
        letGo();
      },
    };
  }

  /** Waits for `work` (a job claimed outside `claim`) before stopping; it takes no room. */
  protected track(work: Promise<void>): void {
    const tracked = work.catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, this.options.jobFailed));
    this.tracked.add(tracked);
    void tracked.finally(() => this.tracked.delete(tracked));
  }

  /** Claims no more and waits (at most `drainMs`) for the jobs in flight. */
  async stop(drainMs = this.options.drainMs): Promise<void> {
    this.stopped = true;
    this.claims.stop();
    clearInterval(this.poll);
    const done = Promise.all([this.inFlight === 0 ? undefined : new Promise<void>((resolve) => (this.drained = resolve)), ...this.tracked]);
    if (drainMs === undefined) await done;
    else {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)))]);
      clearTimeout(timer);
    }
    await this.options.wakeOn?.close();
  }

  private room(): number {
    return Math.min(this.options.concurrency - this.inFlight, this.options.batch);
  }

  private claimLoop(): WakeLoop {
    return new WakeLoop(
      () => this.claimRoom(),
      (err) => this.logger.error({ err }, this.options.claimFailed),
    );
  }

  /** One claim, as much as there is room for; true when it filled the room (more may be due). */
  private async claimRoom(): Promise<boolean> {
    const room = this.room();
    if (room <= 0) {
      this.backlog = true;
      return false;
    }
    const { jobs, leftBehind = false } = await this.claim(room);
    this.inFlight += jobs.length;
    this.backlog = leftBehind;
    for (const job of jobs) void this.run(job);
    return jobs.length === room;
  }

  private async run(job: T): Promise<void> {
    try {
      await this.handle(job);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, this.options.jobFailed);
    } finally {
      this.release(1);
    }
  }

  /** Room given back: whoever waits for it (stop, jobs left behind) goes on. */
  private release(room: number): void {
    this.inFlight -= room;
    if (this.inFlight === 0) this.drained?.();
    if (this.backlog) this.wake();
  }
}
