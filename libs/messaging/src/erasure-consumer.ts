import { Controller, Inject, Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ConsumeEvent } from './consume-event';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { parseDomainMessage } from './validation';

/** Removes one customer's personal data from an app's records; must change nothing more when it runs again. */
export type EraseContact<S> = (service: S, accountId: string, svcId: number) => Promise<number>;

/** Consumes `contact.erased` for an app: `erase` blanks the customer's `records` and the count is logged. */
export function contactErasureConsumer<S>(
  service: Type<S>,
  records: string,
  erase: EraseContact<S>,
): Type<{ erase(payload: unknown): Promise<void> }> {
  @Controller()
  class ContactErasureConsumer {
    constructor(
      @Inject(service) private readonly target: S,
      @Inject(APP_LOGGER) private readonly logger: Logger,
    ) {}

    @ConsumeEvent('contact.erased')
    async erase(@Payload() payload: unknown): Promise<void> {
      const message = parseDomainMessage(payload, ['contact.erased']);
      const erased = await erase(this.target, message.account_id, message.data.svc_id);
      this.logger.info({ account_id: message.account_id, changed: erased }, `erased a customer from ${records}`);
    }
  }
  return ContactErasureConsumer;
}
