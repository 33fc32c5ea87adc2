import { Injectable } from '@nestjs/common';
import { EventContact, GatewayContext } from '@svc/contracts';
import { ContactsClient } from '@svc/internal-clients';
import { ConversationRow, ConversationsRepository } from './conversations.repository';

/**
 * The context the chat signs for calls it makes on an account's behalf (contacts-api,
 * identity-issuer, knowledge-api). Those internal routes read the account id only.
 */
export function accountContext(accountId: string, requestId: string): GatewayContext {
  return { account: { id: accountId, name: '', plan: 'scale' }, keyId: 'chat', requestId };
}

/** The customer of a conversation, as every chat event carries it (`contact`). */
@Injectable()
export class CustomersService {
  constructor(
    private readonly contacts: ContactsClient,
    private readonly conversations: ConversationsRepository,
  ) {}

  /**
   * The conversation's customer as contacts-api holds them now (a ref attached later included). An
   * anonymous visitor becomes a chat-met customer here, at their first message; so does one whose
   * customer was erased meanwhile. Returns the conversation as it is afterwards.
   */
  async contactFor(row: ConversationRow, requestId: string): Promise<{ contact: EventContact; conversation: ConversationRow }> {
    const context = accountContext(row.account_id, requestId);
    if (row.customer_svc_id !== null) {
      const contact = await this.contacts.bySvcId(row.customer_svc_id, context);
      if (contact) return { contact, conversation: row };
    }
    const created = await this.contacts.createChatMet(context);
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
}
