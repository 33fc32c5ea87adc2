import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EVENT_KINDS, EventKind } from '@svc/contracts';
import { parseDomainMessage } from '@svc/messaging';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { AppendBatcher } from './append-batcher';
import { EventLog } from './event-log';

/** Domain messages from the producers' outboxes: public events are appended, erasures applied. */
@Controller()
export class DomainConsumer {
  constructor(
    private readonly log: EventLog,
    private readonly batcher: AppendBatcher,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  @EventPattern(EVENT_KINDS as unknown as string[])
  async record(@Payload() payload: unknown): Promise<void> {
    await this.batcher.append(parseDomainMessage<EventKind>(payload, EVENT_KINDS));
  }

  @EventPattern('contact.erased')
  async erase(@Payload() payload: unknown): Promise<void> {
    const message = parseDomainMessage(payload, ['contact.erased']);
    const erased = await this.log.eraseContact(message.account_id, message.data.svc_id);
    this.logger.info({ account_id: message.account_id, events: erased }, 'erased a customer from retained events');
  }
}
