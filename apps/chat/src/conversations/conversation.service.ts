import { Inject, Injectable } from '@nestjs/common';
import {
  ChatConversationState,
  ChatMessage,
  EventConsent,
  EventContact,
  EventReach,
  FutureConsentDto,
  HandoverReachDto,
  INVALID_FIELDS,
  KnowledgeSearchResult,
} from '@svc/contracts';
import { ContactsClient } from '@svc/internal-clients';
import { ApiError, unavailableError } from '@svc/platform';
import { asksForPerson } from '../assistant/assistant-rules';
import { emailTexts } from '../channels/email-texts';
import { consentWords, futureConsentWords, textsFor } from '../texts/texts';
import { ChatEvents } from './chat-events';
import {
  ConversationRow,
  ConversationsRepository,
  ConversationTransaction,
  NewMessage,
  PendingReply,
  toMessage,
} from './conversations.repository';
import { accountContext, CustomersService } from './customers.service';
import { EMAIL_LINKS, REPLY_QUEUE } from '../chat.tokens';
import { CHAT_CONFIG, ChatConfig, parseDuration } from '../chat.config';

/** Told when a customer message waits for the assistant's answer (the assistant answers it soon after the commit). */
export interface ReplyQueue {
  /**
   * Starts the knowledge search for a question about to be written, so that it runs while the
   * message commits (nothing else happens before the commit: no reply, no writer).
   */
  searchEarly(conversation: ConversationRow, text: string, requestId: string): Promise<KnowledgeSearchResult[]>;
  /** `contact`: the customer as just read, so that the answer need not ask contacts-api again; `found`: its early search. */
  answerSoon(pending: PendingReply, contact: EventContact, found?: Promise<KnowledgeSearchResult[]>): void;
}

/**
 * Queues a confirmation link for an unconfirmed email, in the transaction that records it; gives
 * the token the conversation gets once it is confirmed, or null (no link).
 */
export interface EmailLinks {
  queueIfUnconfirmed(tx: ConversationTransaction, row: ConversationRow, contact: EventContact, email: string): Promise<string | null>;
}

const stateOf = (row: ConversationRow): ChatConversationState => ({
  id: row.id,
  channel: row.channel,
  status: row.status,
  handover: row.handover,
});

/** A visitor's writes: messages, asking for a person, leaving a way to be reached. Each change commits with its events. */
@Injectable()
export class ConversationService {
  private readonly handoverWaitMs: number;
  private readonly messagesPerMinute: number;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly customers: CustomersService,
    private readonly contacts: ContactsClient,
    private readonly events: ChatEvents,
    @Inject(REPLY_QUEUE) private readonly replies: ReplyQueue,
    @Inject(EMAIL_LINKS) private readonly emails: EmailLinks,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'HANDOVER_WAIT' | 'VISITOR_MESSAGES_PER_MINUTE'>,
  ) {
    this.handoverWaitMs = parseDuration(config.HANDOVER_WAIT);
    this.messagesPerMinute = config.VISITOR_MESSAGES_PER_MINUTE;
  }

  /**
   * A customer message → `message.received`. Asking for a person in words is a hand-over
   * (`conversation.needs_human`, `customer_asked`); otherwise, while no person has been asked for,
   * the assistant answers it after the commit (on the stream). Past the per-minute limit: 429,
   * nothing written, and contacts-api not asked when the visitor's row already shows the limit
   * reached. Without a hand-over, one statement writes the message and its event.
   */
  async send(visitor: ConversationRow, text: string, requestId: string): Promise<ChatMessage> {
    if ((visitor.recent_customer_messages ?? 0) >= this.messagesPerMinute) return this.refuseOverLimit(visitor);
    const { contact, conversation } = await this.customers.contactFor(visitor, requestId);
    const message: NewMessage = {
      author: 'customer',
      text,
      replyPending: true,
      event: (added) => this.events.received(conversation, contact, added),
    };
    if (asksForPerson(text)) return this.sendAskingForPerson(conversation, contact, { ...message, replyPending: false });
    const found = conversation.handover === 'none' ? this.replies.searchEarly(conversation, text, requestId) : undefined;
    // Dropped unused when the message is refused or a person was asked for meanwhile; a failed search fails its answer.
    found?.catch(() => undefined);
    const added = await this.conversations.addCustomerMessage(conversation.account_id, conversation.id, message, this.messagesPerMinute);
    if (!added) return this.refuseOverLimit(conversation);
    if (added.reply_pending) this.replies.answerSoon({ id: added.id, text, conversation }, contact, found);
    return toMessage(added);
  }

  private sendAskingForPerson(conversation: ConversationRow, contact: EventContact, message: NewMessage): Promise<ChatMessage> {
    return this.conversations.transaction(async (tx) => {
      const row = (await tx.lock(conversation.account_id, conversation.id)) as ConversationRow;
      const added = await tx.addCustomerMessage(row.account_id, row.id, message, this.messagesPerMinute);
      if (!added) return this.refuseOverLimit(row);
      if (row.handover === 'none') await this.askForPerson(tx, row, contact, 'customer_asked');
      return toMessage(added);
    });
  }

  private async refuseOverLimit(row: ConversationRow): Promise<never> {
    const recent = await this.conversations.recentCustomerMessages(row.account_id, row.id);
    const seconds = Math.max(Math.ceil(recent.retryAfterMs / 1000), 1);
    throw new ApiError('rate_limited', `At most ${this.messagesPerMinute} messages a minute; try again in ${seconds} s.`, undefined, {
      'retry-after': String(seconds),
    });
  }

  /**
   * "Talk to a person": `conversation.needs_human` (`assistant_unsure` when the assistant's last
   * answer found nothing and offered one, else `customer_asked`), then the wait for the team.
   * Asking again changes nothing.
   */
  async handover(visitor: ConversationRow, requestId: string): Promise<ChatConversationState> {
    if (visitor.handover !== 'none') return stateOf(visitor);
    const { contact, conversation } = await this.customers.contactFor(visitor, requestId);
    return this.conversations.transaction(async (tx) => {
      const row = (await tx.lock(conversation.account_id, conversation.id)) as ConversationRow;
      if (row.handover !== 'none') return stateOf(row);
      const reason = (await tx.lastAnswerOfferedPerson(row.account_id, row.id)) ? 'assistant_unsure' : 'customer_asked';
      return this.askForPerson(tx, row, contact, reason);
    });
  }

  /**
   * How the team should reach the customer, after nobody answered: stored on a chat-met customer,
   * the consent (if given) recorded by contacts-api with its `consent.granted`, then
   * `handover.created` with `reach`, the customer's last question and `nobody_answered`.
   */
  async reach(
    visitor: ConversationRow,
    dto: HandoverReachDto,
    requestId: string,
  ): Promise<ChatConversationState & { next_token?: string }> {
    if (visitor.handover !== 'waiting' && visitor.handover !== 'ask_reach') {
      throw new ApiError('conflict', visitor.handover === 'none' ? 'Ask for a person first.' : 'The team already has a way to reach you.');
    }
    const lang = dto.lang ?? visitor.lang;
    if (dto.consent && dto.consent_text !== consentWords(dto.channel, lang)) {
      throw new ApiError('validation_failed', INVALID_FIELDS, [
        { path: 'consent_text', message: 'consent_text must be the exact words shown, from GET /chat/v1/texts' },
      ]);
    }
    const found = await this.customers.contactFor(visitor, requestId);
    const context = accountContext(visitor.account_id, requestId);
    const svcId = found.contact.svc_id;
    let contact: EventContact =
      (await this.contacts.saveChatDetails(svcId, dto.channel === 'email' ? { email: dto.email } : { phone: dto.phone }, context)) ??
      found.contact;
    if (dto.consent) {
      const recorded = await this.contacts.recordChatConsent(
        svcId,
        {
          purpose: dto.channel === 'email' ? 'reply_email' : 'reply_whatsapp',
          text: dto.consent_text,
          lang,
          conversation: this.events.conversation(visitor),
        },
        context,
      );
      if (recorded) contact = recorded.contact;
    }
    const reach = reachOf(dto, contact);
    return this.conversations.transaction(async (tx) => {
      const row = (await tx.lock(visitor.account_id, visitor.id)) as ConversationRow;
      if (row.handover === 'created') return stateOf(row);
      const question = await tx.lastCustomerText(row.account_id, row.id);
      await tx.setHandover(row.account_id, row.id, { status: 'handed_over', handover: 'created', reach });
      await tx.recordHandover(row.account_id, row.id, 'nobody_answered');
      const channel = dto.channel === 'email' ? (dto.email as string) : `WhatsApp (${dto.phone as string})`;
      await tx.addMessage(row.account_id, row.id, {
        author: 'system',
        text: textsFor(row.lang).handover_created.replace('{channel}', channel),
      });
      await tx.enqueue([this.events.handoverCreated(row, contact, reach, question)]);
      // The token the conversation gets once the address is confirmed: for this widget only (docs/chat.md "Visitor tokens").
      const next = dto.channel === 'email' ? await this.emails.queueIfUnconfirmed(tx, row, contact, dto.email as string) : null;
      if (next) {
        await tx.addMessage(row.account_id, row.id, {
          author: 'system',
          text: emailTexts(row.lang).on_its_way.replace('{email}', dto.email as string),
        });
      }
      return { ...stateOf(row), status: 'handed_over', handover: 'created', ...(next ? { next_token: next } : {}) };
    });
  }

  /**
   * A future-contact consent the visitor ticked (`future_email` / `future_whatsapp`), with the exact
   * words shown in their language: recorded by contacts-api (origin and source `chat`) with its
   * `consent.granted`. Words other than the chat's → 400, nothing recorded.
   */
  async consent(visitor: ConversationRow, dto: FutureConsentDto, requestId: string): Promise<{ consent: EventConsent }> {
    const lang = dto.lang ?? visitor.lang;
    if (dto.consent_text !== futureConsentWords(dto.purpose, lang)) {
      throw new ApiError('validation_failed', INVALID_FIELDS, [
        { path: 'consent_text', message: 'consent_text must be the exact words shown, from GET /chat/v1/texts' },
      ]);
    }
    const { contact } = await this.customers.contactFor(visitor, requestId);
    const recorded = await this.contacts.recordChatConsent(
      contact.svc_id,
      { purpose: dto.purpose, text: dto.consent_text, lang, conversation: this.events.conversation(visitor) },
      accountContext(visitor.account_id, requestId),
    );
    if (!recorded) throw unavailableError();
    return { consent: recorded.consent };
  }

  private async askForPerson(
    tx: ConversationTransaction,
    row: ConversationRow,
    contact: EventContact,
    reason: 'customer_asked' | 'assistant_unsure',
  ): Promise<ChatConversationState> {
    await tx.setHandover(row.account_id, row.id, { status: 'needs_human', handover: 'waiting', reason, dueInMs: this.handoverWaitMs });
    await tx.recordHandover(row.account_id, row.id, reason);
    await tx.addMessage(row.account_id, row.id, { author: 'system', text: textsFor(row.lang).person_requested });
    await tx.enqueue([this.events.needsHuman(row, contact, reason)]);
    return { ...stateOf(row), status: 'needs_human', handover: 'waiting' };
  }
}

/**
 * `reach` of `handover.created` (the contract's shape): the channel chosen and its address; an
 * address is verified only when it is the one the business confirmed for this customer.
 */
export function reachOf(dto: HandoverReachDto, contact: EventContact): EventReach {
  const email = dto.channel === 'email' ? (dto.email ?? '') : '';
  const whatsapp = dto.channel === 'whatsapp' ? (dto.phone ?? '') : '';
  return {
    method: dto.channel,
    email,
    email_verified: email !== '' && contact.email_confirmed && contact.email?.toLowerCase() === email.toLowerCase(),
    whatsapp,
    whatsapp_verified: whatsapp !== '' && contact.phone_confirmed && contact.phone === whatsapp,
    consent: dto.consent,
  };
}
