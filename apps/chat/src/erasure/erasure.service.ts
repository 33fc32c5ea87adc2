import { Injectable } from '@nestjs/common';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { CustomersRepository } from '../conversations/customers.repository';

/** Names shorter than this are not removed from message texts (they would cut words apart). */
const MIN_NAME_LENGTH = 3;

/** What of a conversation names its customer. */
export type PersonalFields = Pick<ConversationRow, 'customer_name' | 'customer_email' | 'customer_phone' | 'reach'>;

/** What to remove from the texts of a customer's messages: their name, email and phone, and the reach details they left. */
export function personalTerms(rows: readonly PersonalFields[]): string[] {
  const terms = new Set<string>();
  for (const row of rows) {
    if ([...row.customer_name.trim()].length >= MIN_NAME_LENGTH) terms.add(row.customer_name.trim());
    for (const value of [row.customer_email, row.customer_phone, row.reach?.email, row.reach?.whatsapp]) {
      if (value) {
        terms.add(value);
        terms.add(value.toLowerCase());
      }
    }
  }
  // Longest first, so that an email is removed before a name inside it.
  return [...terms].sort((a, b) => b.length - a.length);
}

/**
 * Erasure in the chat: the model of customers keeps nothing of them, and their name, email and phone
 * are blanked in their conversations and messages. Idempotent.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly customers: CustomersRepository,
  ) {}

  /** Returns how many conversations were blanked. */
  async erase(accountId: string, svcId: number): Promise<number> {
    await this.customers.forget(accountId, svcId);
    return this.conversations.transaction(async (tx) => {
      const rows = await tx.lockCustomerConversations(accountId, svcId);
      if (rows.length === 0) return 0;
      const ids = rows.map((row) => row.id);
      await tx.blankInMessages(accountId, ids, personalTerms(rows));
      await tx.blankCustomer(accountId, ids);
      await tx.eraseChannelData(accountId, svcId, ids);
      return rows.length;
    });
  }
}
