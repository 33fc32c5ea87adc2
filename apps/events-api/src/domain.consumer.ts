import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EVENT_KINDS, EventKind } from '@svc/contracts';
import { parseDomainMessage } from '@svc/messaging';
import { EventsService } from './events.service';

/** Domain messages from the producers' outboxes: public events are appended, erasures applied. */
@Controller()
export class DomainConsumer {
  constructor(private readonly events: EventsService) {}

  @EventPattern(EVENT_KINDS as unknown as string[])
  async record(@Payload() payload: unknown): Promise<void> {
    await this.events.record(parseDomainMessage<EventKind>(payload, EVENT_KINDS));
  }

  @EventPattern('contact.erased')
  async erase(@Payload() payload: unknown): Promise<void> {
    const message = parseDomainMessage(payload, ['contact.erased']);
    await this.events.eraseContact(message.account_id, message.data.svc_id);
  }
}
