import { Injectable } from '@nestjs/common';
import { DomainMessage, EventKind } from '@svc/contracts';
import { classifyFailure } from '@svc/messaging';
import { EventLog } from './event-log';

interface Waiting {
  message: DomainMessage<EventKind>;
  done: (err?: unknown) => void;
}

const MAX_BATCH = 200;

/**
 * Groups the messages being handled at the same time (up to the consumer's prefetch) into one
 * append per account. No timer: at low load every message is appended at once; under load the
 * messages that arrive while an account's append runs go together in the next one. Each handler
 * resolves when its own message is committed, so it is acked only then. A batch that fails for a
 * reason other than a dependency being away is appended again message by message, so that one
 * message the database refuses fails (and is parked) alone while its neighbours are appended.
 */
@Injectable()
export class AppendBatcher {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly busy = new Set<string>();

  constructor(private readonly log: EventLog) {}

  append(message: DomainMessage<EventKind>): Promise<void> {
    return new Promise((resolve, reject) => {
      const account = message.account_id;
      const queue = this.waiting.get(account) ?? [];
      queue.push({ message, done: (err) => (err ? reject(err) : resolve()) });
      this.waiting.set(account, queue);
      if (!this.busy.has(account)) void this.flush(account);
    });
  }

  private async flush(account: string): Promise<void> {
    this.busy.add(account);
    try {
      for (;;) {
        const queue = this.waiting.get(account) ?? [];
        if (queue.length === 0) break;
        const batch = queue.splice(0, MAX_BATCH);
        try {
          await this.log.append(
            account,
            batch.map((w) => w.message),
          );
          for (const w of batch) w.done();
        } catch (err) {
          const failure = classifyFailure(err);
          if (batch.length === 1 || (failure.kind === 'transient' && failure.recognised)) {
            for (const w of batch) w.done(err);
          } else {
            await this.appendOneByOne(account, batch);
          }
        }
      }
    } finally {
      this.busy.delete(account);
      this.waiting.delete(account);
    }
  }

  /** Each message in its own append, in order: only a message that fails alone is failed. */
  private async appendOneByOne(account: string, batch: Waiting[]): Promise<void> {
    for (const w of batch) {
      try {
        await this.log.append(account, [w.message]);
        w.done();
      } catch (err) {
        w.done(err);
      }
    }
  }
}
