import { Controller, Inject } from '@nestjs/common';
import { ContactErasureConsumer } from '@svc/messaging';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { ErasureService } from './erasure.service';

/** `contact.erased` from contacts-api: the customer's personal data leaves the chat's records. */
@Controller()
export class ErasureConsumer extends ContactErasureConsumer {
  constructor(
    private readonly erasure: ErasureService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected async eraseContact(accountId: string, svcId: number): Promise<void> {
    const conversations = await this.erasure.erase(accountId, svcId);
    this.logger.info({ account_id: accountId, conversations }, 'erased a customer from conversations');
  }
}
