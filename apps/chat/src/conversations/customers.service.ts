import { Injectable } from '@nestjs/common';
import { EventContact, GatewayContext } from '@svc/contracts';
import { ContactsClient } from '@svc/internal-clients';
import { ConversationRow, ConversationsRepository } from './conversations.repository';
import { CustomersRepository } from './customers.repository';

/**
 * The context the chat signs for calls it makes on an account's behalf (contacts-api,
 * identity-issuer, knowledge-api). Those internal routes read the account id only.
 */
export function accountContext(accountId: string, requestId: string): GatewayContext {
  return { account: { id: accountId, name: '', plan: 'scale' }, keyId: 'chat', requestId };
}

/**
 * The customer of a conversation, as every chat event carries it (`contact`): from the chat's model
 * of customers (fed by contacts-api's `contact.changed`, ADR 013), or from contacts-api when the
 * model does not hold them yet.
 */
@Injectable()
export class CustomersService {
  constructor(
    private readonly contacts: ContactsClient,
    private readonly conversations: ConversationsRepository,
    private readonly model: CustomersRepository,
  ) {}

  /**
   * The conversation's customer (a ref attached later included, once its `contact.changed` arrived).
   * An anonymous visitor becomes a chat-met customer here, at their first message; so does one whose
   * customer was erased meanwhile. Returns the conversation as it is afterwards.
   */
  async contactFor(row: ConversationRow, requestId: string): Promise<{ contact: EventContact; conversation: ConversationRow }> {
    const known = await this.contactOf(row.account_id, row.customer_svc_id, requestId, row.customer);
    if (known) return { contact: known, conversation: row };
    const created = await this.contacts.createChatMet(accountContext(row.account_id, requestId));
    await this.model.remember(row.account_id, created);
    const conversation = await this.conversations.attachCustomer(row.account_id, row.id, {
      svcId: created.svc_id,
      identified: false,
      name: '',
      email: null,
      phone: null,
    });
    if (conversation.customer_svc_id === created.svc_id) return { contact: created, conversation };
    // Another request of this visitor attached a customer first: that one is theirs.
    return this.contactFor(conversation, requestId);
  }

  /**
   * The customer with this svc_id: the model's (`held`, when it was read with the conversation), else
   * contacts-api's, then held; null when there is none or they were erased.
   */
  async contactOf(accountId: string, svcId: number | null, requestId: string, held?: EventContact | null): Promise<EventContact | null> {
    if (svcId === null) return null;
    const known = held === undefined ? await this.model.known(accountId, svcId) : held;
    if (known) return known;
    const contact = await this.contacts.bySvcId(svcId, accountContext(accountId, requestId));
    if (contact) await this.model.remember(accountId, contact);
    return contact ?? null;
  }
}
