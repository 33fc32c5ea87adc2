import { Injectable, Optional } from '@nestjs/common';
import { eventContactSvcId, RecordedEvent, WEBHOOK_ENDPOINTS_MAX } from '@svc/contracts';
import { BatchQueue } from '@svc/messaging';
import { currentTraceparent } from '@svc/tracing';
import { AccountContacts, ClaimedDelivery, DeliveriesRepository, NewEvent } from './deliveries.repository';
import { DeliveryWorker } from './delivery-worker';
import { deliveryBody, erasedDeliveryBody, parseRecordedEvent } from './recorded-event';

/** Events in one insert at most. */
const MAX_BATCH = 100;
/** Inserts in flight at once. */
const MAX_INSERTS = 2;

/**
 * Turns recorded events into deliveries: the entry point of the events consumer. Events handled at
 * the same time (up to the consumer's prefetch) go into one insert (see BatchQueue: no timer, each
 * call resolves when its own event's deliveries are committed, a refused event fails alone).
 */
@Injectable()
export class DeliveryService {
  private readonly inserts = new BatchQueue<NewEvent>({
    maxBatch: MAX_BATCH,
    writers: MAX_INSERTS,
    write: (events) => this.insert(events),
  });

  constructor(
    private readonly deliveries: DeliveriesRepository,
    /** This process's worker, if it delivers: it sends what it can take of the new deliveries at once. */
    @Optional() private readonly worker?: DeliveryWorker,
  ) {}

  /**
   * One delivery per matching active endpoint of the event's account; a redelivered event adds
   * nothing. The body is the event's JSON, fixed now: every attempt sends these bytes. Throws
   * InvalidRecordedEventError for a malformed event (it can never succeed). The deliveries this
   * process's worker has room for are leased to it as they are made and sent right after the
   * commit; it claims the rest when it has room (or any worker does: a process that does not
   * deliver wakes them all).
   */
  async recordEvent(recorded: RecordedEvent): Promise<void> {
    const { account_id: accountId, event } = parseRecordedEvent(recorded);
    const body = deliveryBody(event);
    const svcId = eventContactSvcId(event.data);
    const erasure = svcId === null ? undefined : { svcId, body: erasedDeliveryBody(body) };
    return this.inserts.add({
      accountId,
      eventId: event.id,
      kind: event.event,
      body,
      ...(erasure ? { erasure } : {}),
      traceparent: currentTraceparent(),
    });
  }

  private async insert(events: NewEvent[]): Promise<void> {
    const worker = this.worker?.enabled ? this.worker : undefined;
    const reservation = worker?.reserve(WEBHOOK_ENDPOINTS_MAX * events.length);
    let leased: ClaimedDelivery[] = [];
    let inserted = 0;
    try {
      ({ inserted, leased } = await this.deliveries.insertForEvents(events, { lease: reservation?.lease, notify: !worker }));
    } finally {
      reservation?.settle(leased);
    }
    // What this process could not take now, it claims as soon as it has room.
    if (worker && inserted > leased.length) worker.wake();
    // Also after a redelivery that made nothing: the look after an earlier attempt's commit may have failed.
    await this.blankIfErasedMeanwhile(events);
  }

  /**
   * An erasure that committed while the insert ran was not seen by it (its snapshot is older), and
   * that erasure's blanking may have missed the new rows: after the commit, look again. Rare, and
   * after the new deliveries went out: it delays only the message's ack.
   */
  private async blankIfErasedMeanwhile(events: readonly NewEvent[]): Promise<void> {
    const byAccount = new Map<string, number[]>();
    for (const e of events) if (e.erasure) byAccount.set(e.accountId, [...(byAccount.get(e.accountId) ?? []), e.erasure.svcId]);
    if (byAccount.size === 0) return;
    const erased = await this.deliveries.erasedAmong([...byAccount].map(([accountId, svcIds]) => ({ accountId, svcIds })));
    for (const contacts of erased) await this.deliveries.rewriteBodiesOf(contacts, erasedDeliveryBody);
  }

  /**
   * `contact.erased`: the customer is recorded as erased (committed first), then the body of every
   * delivery of theirs is blanked as the feed blanks its events, keeping its event id: pending ones
   * and their retries send the blanked body, finished ones keep no copy. Deliveries made later are
   * blanked as they are made. Idempotent. Returns how many bodies changed.
   */
  async eraseContact(accountId: string, svcId: number): Promise<number> {
    await this.deliveries.recordErasure(accountId, svcId);
    const contacts: AccountContacts = { accountId, svcIds: [svcId] };
    return this.deliveries.rewriteBodiesOf(contacts, erasedDeliveryBody);
  }
}
