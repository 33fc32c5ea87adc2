import { Inject, Injectable } from '@nestjs/common';
import { ChatMessage, DomainMessage, EventContact, EventConversation, EventReach, HandoverReason } from '@svc/contracts';
import { domainMessage } from '@svc/messaging';
import { ConversationRow } from './conversations.repository';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';

/**
 * The chat's public events, with the contract's payloads (`contact` as contacts-api returns it,
 * `conversation` = `{id, channel, url}`), ready for the outbox of the transaction that makes them.
 */
@Injectable()
export class ChatEvents {
  private readonly appUrl: string;

  constructor(@Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'APP_URL'>) {
    this.appUrl = config.APP_URL;
  }

  conversation(row: Pick<ConversationRow, 'id' | 'channel'>): EventConversation {
    return { id: row.id, channel: row.channel, url: `${this.appUrl.replace(/\/+$/, '')}/inbox/${row.id}` };
  }

  received(row: ConversationRow, contact: EventContact, message: ChatMessage): DomainMessage {
    return domainMessage('message.received', row.account_id, {
      contact,
      message: { id: message.id, text: message.text, at: message.at },
      conversation: this.conversation(row),
    });
  }

  sent(row: ConversationRow, contact: EventContact, message: ChatMessage & { author: 'assistant' | 'team' }): DomainMessage {
    return domainMessage('message.sent', row.account_id, {
      contact,
      message: { id: message.id, text: message.text, at: message.at, author: message.author },
      conversation: this.conversation(row),
    });
  }

  needsHuman(row: ConversationRow, contact: EventContact, reason: HandoverReason): DomainMessage {
    return domainMessage('conversation.needs_human', row.account_id, { contact, reason, conversation: this.conversation(row) });
  }

  handoverCreated(row: ConversationRow, contact: EventContact, reach: EventReach, message: string): DomainMessage {
    return domainMessage('handover.created', row.account_id, {
      contact,
      reach,
      message,
      reason: 'nobody_answered',
      conversation: this.conversation(row),
    });
  }
}
