import { Injectable } from '@nestjs/common';
import { RecordedEvent } from '@svc/contracts';
import { DeliveriesRepository } from './deliveries.repository';
import { parseRecordedEvent } from './recorded-event';

/** Turns recorded events into deliveries: the entry point of the events consumer. */
@Injectable()
export class DeliveryService {
  constructor(private readonly deliveries: DeliveriesRepository) {}

  /**
   * One delivery per matching active endpoint of the event's account, in one transaction; a
   * redelivered event adds nothing. The body is the event's JSON, fixed now: every attempt sends
   * these bytes. Throws InvalidRecordedEventError for a malformed event (it can never succeed).
   */
  async recordEvent(recorded: RecordedEvent): Promise<void> {
    const { account_id: accountId, event } = parseRecordedEvent(recorded);
    // The contract's field order, whatever order the message had its keys in (it passed through jsonb).
    const { id, event: kind, at, data, ...later } = event;
    const body = Buffer.from(JSON.stringify({ id, event: kind, at, data, ...later }), 'utf8');
    await this.deliveries.insertForEvent(accountId, id, kind, body);
  }
}
