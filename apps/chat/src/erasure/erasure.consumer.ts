import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { parseDomainMessage } from '@svc/messaging';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { ErasureService } from './erasure.service';

/** `contact.erased` from contacts-api: the customer's personal data leaves the chat's records. */
@Controller()
export class ErasureConsumer {
  constructor(
    private readonly erasure: ErasureService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  @EventPattern('contact.erased')
  async erase(@Payload() payload: unknown): Promise<void> {
    const message = parseDomainMessage(payload, ['contact.erased']);
    const conversations = await this.erasure.erase(message.account_id, message.data.svc_id);
    this.logger.info({ account_id: message.account_id, conversations }, 'erased a customer from conversations');
  }
}
