import { classifyFailure } from './failures';

export interface BatchQueueOptions<T> {
  /** Items one write takes at most. */
  maxBatch: number;
  /** Writes in flight at once (per lane). */
  writers: number;
  /** Items of different lanes never share a write; each lane has its own writers. One lane by default. */
  lane?: (item: T) => string;
  /** Writes a batch of one lane (all or nothing). */
  write: (batch: T[], lane: string) => Promise<unknown>;
}

interface Waiting<T> {
  item: T;
  done: (err?: unknown) => void;
}

/**
 * Batches the items that arrive while a write runs (no timer); `add` resolves when its own item is written.
 * A batch that fails for its data is written again item by item, so only the bad item fails.
 */
export class BatchQueue<T> {
  private readonly waiting = new Map<string, Waiting<T>[]>();
  private readonly writing = new Map<string, number>();

  constructor(private readonly options: BatchQueueOptions<T>) {}

  add(item: T): Promise<void> {
    const lane = this.options.lane?.(item) ?? '';
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(lane) ?? [];
      queue.push({ item, done: (err) => (err === undefined ? resolve() : reject(err)) });
      this.waiting.set(lane, queue);
      if ((this.writing.get(lane) ?? 0) < this.options.writers) void this.drain(lane, queue);
    });
  }

  private async drain(lane: string, queue: Waiting<T>[]): Promise<void> {
    this.writing.set(lane, (this.writing.get(lane) ?? 0) + 1);
    try {
      while (queue.length > 0) await this.writeBatch(lane, queue.splice(0, this.options.maxBatch));
    } finally {
      const writers = (this.writing.get(lane) ?? 1) - 1;
      if (writers > 0) this.writing.set(lane, writers);
      else {
        this.writing.delete(lane);
        this.waiting.delete(lane);
      }
    }
  }

  private async writeBatch(lane: string, batch: Waiting<T>[]): Promise<void> {
    try {
      await this.options.write(
        batch.map((w) => w.item),
        lane,
      );
      for (const w of batch) w.done();
    } catch (err) {
      const failure = classifyFailure(err);
      if (batch.length === 1 || (failure.kind === 'transient' && failure.recognised)) {
        for (const w of batch) w.done(err);
        return;
      }
      for (const w of batch)
        await this.options.write([w.item], lane).then(
          () => w.done(),
          (alone: unknown) => w.done(alone),
        );
    }
  }
}
