import { EventPattern, Payload } from '@nestjs/microservices';
import { parseDomainMessage } from './validation';

/**
 * Takes `contact.erased` from contacts-api: the app removes the customer's personal data from its
 * own records (`eraseContact`), which must change nothing more when the message comes again. A
 * malformed message is parked.
 */
export abstract class ContactErasureConsumer {
  @EventPattern('contact.erased')
  async erase(@Payload() payload: unknown): Promise<void> {
    const message = parseDomainMessage(payload, ['contact.erased']);
    await this.eraseContact(message.account_id, message.data.svc_id);
  }

  protected abstract eraseContact(accountId: string, svcId: number): Promise<void>;
}
