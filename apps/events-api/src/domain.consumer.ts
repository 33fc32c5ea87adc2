import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EVENT_KINDS, EventKind } from '@svc/contracts';
import { ConsumeEvent, contactErasureConsumer, parseDomainMessage } from '@svc/messaging';
import { EventsService } from './events.service';

/** Domain messages from the producers' outboxes: public events are appended to the feed. */
@Controller()
export class DomainConsumer {
  constructor(private readonly events: EventsService) {}

  @ConsumeEvent(EVENT_KINDS)
  async record(@Payload() payload: unknown): Promise<void> {
    await this.events.record(parseDomainMessage<EventKind>(payload, EVENT_KINDS));
  }
}

/** `contact.erased`: the customer's personal data leaves every retained event of the account. */
export const ErasureConsumer = contactErasureConsumer(EventsService, 'retained events', (events, accountId, svcId) =>
  events.eraseContact(accountId, svcId),
);
