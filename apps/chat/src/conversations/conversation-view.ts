import { ChatConversationResponse } from '@svc/contracts';
import { ConversationRow, ConversationsRepository } from './conversations.repository';

/** A conversation as the widget sees it: its state, the identified customer's details, its messages. */
export async function conversationView(conversations: ConversationsRepository, row: ConversationRow): Promise<ChatConversationResponse> {
  return {
    conversation: { id: row.id, channel: row.channel, status: row.status, handover: row.handover },
    customer: row.customer_identified ? { name: row.customer_name, email: row.customer_email, phone: row.customer_phone } : null,
    messages: await conversations.messages(row.account_id, row.id),
  };
}
