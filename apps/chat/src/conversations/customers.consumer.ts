import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ConsumeEvent, parseDomainMessage } from '@svc/messaging';
import { CustomersRepository } from './customers.repository';

/** contacts-api's `contact.changed`: the chat's model of customers follows (an older version never replaces a newer one). */
@Controller()
export class CustomersConsumer {
  constructor(private readonly model: CustomersRepository) {}

  @ConsumeEvent('contact.changed')
  async changed(@Payload() payload: unknown): Promise<void> {
    await this.model.follow(parseDomainMessage(payload, ['contact.changed']));
  }
}
