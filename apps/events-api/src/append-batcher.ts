import { Injectable } from '@nestjs/common';
import { DomainMessage, EventKind } from '@svc/contracts';
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
 * resolves when its own message is committed, so it is acked only then.
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
          for (const w of batch) w.done(err);
        }
      }
    } finally {
      this.busy.delete(account);
      this.waiting.delete(account);
    }
  }
}
