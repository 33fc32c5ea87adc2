import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { parseDomainMessage } from '@svc/messaging';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { DeliveryService } from './delivery.service';

/** Erasures blank the customer's deliveries; a redelivered one changes nothing more. A malformed one is parked. */
@Controller()
export class ErasuresConsumer {
  constructor(
    private readonly deliveries: DeliveryService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  @EventPattern('contact.erased')
  async erase(@Payload() payload: unknown): Promise<void> {
    const message = parseDomainMessage(payload, ['contact.erased']);
    const blanked = await this.deliveries.eraseContact(message.account_id, message.data.svc_id);
    this.logger.info({ account_id: message.account_id, deliveries: blanked }, 'erased a customer from webhook deliveries');
  }
}
