import { Inject, Injectable } from '@nestjs/common';
import {
  ChatMessage,
  InboxConversation,
  InboxConversationResponse,
  InboxConversationsPage,
  INBOX_PAGE_DEFAULT,
  ListConversationsQueryDto,
  MessageAuthor,
  TeamReplyResponse,
  toPage,
} from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { WhatsappService } from '../channels/whatsapp.service';
import { ChatEvents } from '../conversations/chat-events';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { CustomersService } from '../conversations/customers.service';
import { InboxRepository, InboxRow } from './inbox.repository';

export const notFound = (what = 'conversation') => new ApiError('not_found', `No such ${what}.`);

/** The team's side of conversations: the inbox, one conversation, replies. Every read and write is the signed account's. */
@Injectable()
export class InboxService {
  constructor(
    private readonly inbox: InboxRepository,
    private readonly conversations: ConversationsRepository,
    private readonly customers: CustomersService,
    private readonly events: ChatEvents,
    @Inject(WhatsappService) private readonly whatsappRule: Pick<WhatsappService, 'assertFreeFormAllowed'>,
  ) {}

  async list(accountId: string, query: ListConversationsQueryDto, requestId: string): Promise<InboxConversationsPage> {
    const limit = query.limit ?? INBOX_PAGE_DEFAULT;
    const rows = await this.inbox.list(accountId, {
      needsHuman: query.needs_human === undefined ? undefined : query.needs_human === 'true',
      channel: query.channel,
      after: query.after,
      limit,
    });
    return toPage('conversations', rows, {
      limit,
      after: query.after ?? null,
      cursor: (row) => row.cursor,
      items: (page) => Promise.all(page.map((row) => this.view(accountId, row, requestId))),
    });
  }

  async get(accountId: string, id: number, requestId: string): Promise<InboxConversationResponse> {
    const row = await this.inbox.get(accountId, id);
    if (!row) throw notFound();
    const [conversation, messages] = await Promise.all([this.view(accountId, row, requestId), this.inbox.messages(accountId, id)]);
    return { conversation, messages };
  }

  /**
   * A team member's reply: stored, on the widget's stream, `message.sent` (author `team`) in the
   * same transaction; it ends the wait for a person (no `nobody_answered` after it).
   */
  async reply(accountId: string, id: number, text: string, requestId: string): Promise<TeamReplyResponse> {
    const found = await this.conversations.get(accountId, id);
    if (!found) throw notFound();
    // A reply in a WhatsApp conversation goes out on WhatsApp: free-form only within 24 hours of the customer's last message.
    if (found.channel === 'whatsapp') await this.whatsappRule.assertFreeFormAllowed(accountId, id);
    const { contact } = await this.customers.contactFor(found, requestId);
    const added = await this.conversations.transaction(async (tx) => {
      const row = (await tx.lock(accountId, id)) as ConversationRow;
      const message = await tx.addMessage(accountId, id, {
        author: 'team',
        text,
        event: (m) => this.events.sent(row, contact, m as ChatMessage & { author: 'team' }),
      });
      await tx.stopHandoverWait(accountId, id);
      return message;
    });
    return { message: { id: added.id, text: added.text, author: 'team', at: added.at, cited_piece: null } };
  }

  private async view(accountId: string, row: InboxRow, requestId: string): Promise<InboxConversation> {
    return {
      id: row.id,
      channel: row.channel,
      url: this.events.conversation({ id: row.id, channel: 'web' }).url,
      status: row.status,
      lang: row.lang,
      needs_human: row.needs_human,
      contact: await this.customers.contactOf(accountId, row.customer_svc_id, requestId),
      last_message:
        row.last_id === null
          ? null
          : { id: row.last_id, text: row.last_text as string, author: row.last_author as MessageAuthor, at: row.last_at as string },
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
