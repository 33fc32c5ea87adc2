import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EVENT_KINDS, EventKind } from '@svc/contracts';
import { ContactErasureConsumer, parseDomainMessage } from '@svc/messaging';
import { EventsService } from './events.service';

/** Domain messages from the producers' outboxes: public events are appended, erasures applied. */
@Controller()
export class DomainConsumer extends ContactErasureConsumer {
  constructor(private readonly events: EventsService) {
    super();
  }

  @EventPattern(EVENT_KINDS as unknown as string[])
  async record(@Payload() payload: unknown): Promise<void> {
    await this.events.record(parseDomainMessage<EventKind>(payload, EVENT_KINDS));
  }

  protected eraseContact(accountId: string, svcId: number): Promise<void> {
    return this.events.eraseContact(accountId, svcId);
  }
}
