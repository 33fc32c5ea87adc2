import { Injectable } from '@nestjs/common';
import { DomainMessage, EventKind } from '@svc/contracts';
import { BatchQueue } from '@svc/messaging';
import { currentTraceparent } from '@svc/tracing';
import { EventsRepository, TracedMessage } from './events.repository';

const MAX_BATCH = 200;

/** Groups the messages handled at once into one append per account (a `BatchQueue` per account). */
@Injectable()
export class AppendBatcher {
  private readonly queue: BatchQueue<TracedMessage>;

  constructor(events: EventsRepository) {
    this.queue = new BatchQueue({
      maxBatch: MAX_BATCH,
      writers: 1,
      lane: (message) => message.account_id,
      write: (batch, account) => events.append(account, batch),
    });
  }

  /** Appends `message` as part of the trace it is handled in. */
  append(message: DomainMessage<EventKind>): Promise<void> {
    return this.queue.add({ ...message, traceparent: currentTraceparent() });
  }
}
