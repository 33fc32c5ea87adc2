import { Body, HttpCode } from '@nestjs/common';
import { CustomerChangesDto, GatewayContext, INTERNAL_ROUTES } from '@svc/contracts';
import { InvalidMessageError, parseDomainMessage } from '@svc/messaging';
import { ApiError, Caller, Route } from '@svc/platform';
import { InternalChatController } from '../settings/internal-call.guard';
import { CustomersRepository, MODEL_KINDS } from './customers.repository';

/**
 * contacts-api hands the chat the `contact.changed` / `contact.erased` of a write before that write
 * answers its caller, so that an event the chat emits after the answer carries what was written
 * (read your writes, ADR 014). The same messages arrive later through the broker: applying one twice
 * changes nothing.
 */
@InternalChatController('contacts-api')
export class CustomerChangesController {
  constructor(private readonly model: CustomersRepository) {}

  @Route(INTERNAL_ROUTES.chat.customerChanges)
  @HttpCode(204)
  async apply(@Caller() caller: GatewayContext, @Body() body: CustomerChangesDto): Promise<void> {
    const messages = body.messages.map((payload, i) => {
      try {
        const message = parseDomainMessage(payload, MODEL_KINDS);
        if (message.account_id !== caller.account.id) throw new InvalidMessageError('account_id is not the caller’s account');
        return message;
      } catch (err) {
        if (!(err instanceof InvalidMessageError)) throw err;
        throw new ApiError('validation_failed', 'A message is not a change of this account’s customers.', [
          { path: `messages[${i}]`, message: err.message },
        ]);
      }
    });
    for (const message of messages) await this.model.follow(message);
  }
}
