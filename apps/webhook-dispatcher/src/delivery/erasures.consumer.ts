import { Controller, Inject } from '@nestjs/common';
import { ContactErasureConsumer } from '@svc/messaging';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { DeliveryService } from './delivery.service';

/** Erasures blank the customer's deliveries; a redelivered one changes nothing more. A malformed one is parked. */
@Controller()
export class ErasuresConsumer extends ContactErasureConsumer {
  constructor(
    private readonly deliveries: DeliveryService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected async eraseContact(accountId: string, svcId: number): Promise<void> {
    const blanked = await this.deliveries.eraseContact(accountId, svcId);
    this.logger.info({ account_id: accountId, deliveries: blanked }, 'erased a customer from webhook deliveries');
  }
}
