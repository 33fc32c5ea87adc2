import { Inject, Injectable } from '@nestjs/common';
import { ChatMessage, EventContact } from '@svc/contracts';
import { ContactsClient } from '@svc/internal-clients';
import { ApiError, InjectLogger } from '@svc/platform';
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { ChatEvents } from '../conversations/chat-events';
import { ReplyQueue } from '../conversations/conversation.service';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { accountContext, CustomersService } from '../conversations/customers.service';
import { confirmedTokenHash, successorToken } from '../conversations/visitor-token';
import { textsFor } from '../texts/texts';
import { confirmationCodeIn, isStopWord, WhatsappSendRefusal, whatsappRefusal } from './channel-rules';
import { ChannelsRepository } from './channels.repository';
import { ChannelDeliveriesRepository } from './channel-deliveries.repository';
import { REPLY_QUEUE } from '../chat.tokens';

/** One inbound text message, as the Cloud API webhook carries it. */
export interface InboundWhatsappMessage {
  id: string;
  /** The customer's number, E.164 with its `+`. */
  from: string;
  text: string;
}

/** An inbound status of a message the chat sent (`sent`, `delivered`, `read`, `failed`). */
export interface InboundWhatsappStatus {
  id: string;
  status: string;
  at: Date;
}

const PHONE_CODE_TTL_MS = 10 * 60_000;

const REFUSALS: Record<WhatsappSendRefusal, string> = {
  no_whatsapp: 'This conversation is not on WhatsApp, or the account has no WhatsApp number connected.',
  window_closed: "More than 24 hours have passed since the customer's last WhatsApp message: only an approved template may be sent now.",
  no_consent:
    "More than 24 hours have passed since the customer's last message, and the customer has no active reply_whatsapp or future_whatsapp consent: nothing may be sent.",
  no_phone: "More than 24 hours have passed since the customer's last message, and the customer has no phone number: nothing may be sent.",
};

/**
 * WhatsApp: inbound messages become conversations on channel `whatsapp` (the assistant answers
 * there too), STOP withdraws whatsapp consents, a phone code confirms the number; what the team
 * sends after the 24-hour window is an approved template, with consent.
 */
@Injectable()
export class WhatsappService {
  constructor(
    private readonly channels: ChannelsRepository,
    private readonly conversations: ConversationsRepository,
    private readonly customers: CustomersService,
    private readonly contacts: ContactsClient,
    private readonly events: ChatEvents,
    @Inject(REPLY_QUEUE) private readonly replies: ReplyQueue,
    @InjectLogger('whatsapp') private readonly logger: Logger,
  ) {}

  /**
   * Takes in one message sent to `phoneNumberId`. A repeated id is processed once. contacts-api's
   * part (STOP, a code) runs first and is idempotent, so a call that fails half-way (503: the
   * Cloud API sends the webhook again) is completed by the next one.
   */
  async receive(phoneNumberId: string, inbound: InboundWhatsappMessage, requestId: string): Promise<void> {
    const number = await this.channels.numberByPhoneNumberId(phoneNumberId);
    if (!number) {
      this.logger.warn({ request_id: requestId }, 'whatsapp message for a number no account connected; ignored');
      return;
    }
    if (await this.channels.seenInbound(inbound.id)) return;
    const accountId = number.account_id;
    const context = accountContext(accountId, requestId);
    const { contact, conversation } = await this.customers.contactFor(
      await this.channels.whatsappConversation(accountId, inbound.from),
      requestId,
    );
    const known: EventContact =
      contact.phone === null
        ? ((await this.contacts.saveChatDetails(contact.svc_id, { phone: inbound.from }, context)) ?? contact)
        : contact;
    const stop = isStopWord(inbound.text);
    const code = confirmationCodeIn(inbound.text);
    if (stop) {
      const { withdrawn } = await this.contacts.whatsappStop(
        { number: inbound.from, conversation: this.events.conversation(conversation) },
        context,
      );
      this.logger.info({ request_id: requestId, conversation_id: conversation.id, withdrawn }, 'whatsapp STOP');
    } else if (code) {
      await this.confirmPhone(accountId, inbound.from, code, requestId);
    }
    const answer = !stop && !code && conversation.status === 'open';
    const message = await this.conversations.transaction(async (tx) => {
      if (!(await ChannelsRepository.takeInbound(tx.manager, accountId, inbound.id))) return null;
      const row = (await tx.lock(accountId, conversation.id)) as ConversationRow;
      const added = await tx.addMessage(accountId, row.id, {
        author: 'customer',
        text: inbound.text,
        replyPending: answer,
        event: (m) => this.events.received(row, known, m),
      });
      await ChannelsRepository.touchCustomer(tx.manager, accountId, row.id);
      return { added, pending: answer && row.status === 'open' };
    });
    if (message?.pending) this.replies.answerSoon({ id: message.added.id, text: inbound.text, conversation }, known);
  }

  /** A code from `from`: the customer of the conversation that showed it gets `phone_confirmed` (only if `from` is their phone). */
  private async confirmPhone(accountId: string, from: string, code: string, requestId: string): Promise<void> {
    const used = await this.channels.usePhoneCode(accountId, from, code);
    if (!used) return;
    const row = await this.conversations.get(accountId, used.conversation_id);
    if (!row) return;
    try {
      const result = await this.contacts.confirm(
        used.customer_svc_id,
        { confirmed: 'phone', value: from, conversation: this.events.conversation(row) },
        accountContext(accountId, requestId),
      );
      if (typeof result !== 'string') await this.tellConfirmed(row, from, used.next_token_hash);
      this.logger.info(
        {
          request_id: requestId,
          conversation_id: row.id,
          result: typeof result === 'string' ? result : result.changed ? 'confirmed' : 'already',
        },
        'phone code',
      );
    } catch (err) {
      await this.channels.releasePhoneCode(used.conversation_id);
      throw err;
    }
  }

  /**
   * The conversation that showed the code says so (the widget shows it as it comes), and gets the
   * token the widget that asked for the code holds: a token copied before reads nothing more of it.
   */
  private async tellConfirmed(row: ConversationRow, phone: string, nextTokenHash: Buffer | null): Promise<void> {
    await this.conversations.transaction(async (tx) => {
      await tx.lock(row.account_id, row.id);
      await tx.rotateToken(row.account_id, row.id, confirmedTokenHash(nextTokenHash));
      await tx.addMessage(row.account_id, row.id, { author: 'system', text: textsFor(row.lang).phone_confirmed.replace('{phone}', phone) });
    });
  }

  async recordStatus(phoneNumberId: string, status: InboundWhatsappStatus): Promise<void> {
    const number = await this.channels.numberByPhoneNumberId(phoneNumberId);
    if (number) await this.channels.recordStatus(number.account_id, status.id, status.status, status.at);
  }

  /**
   * The widget's phone confirmation: a 6-digit code (10 minutes) for the customer's phone, and the
   * business's WhatsApp number to send it to. 409 without a phone or a connected number.
   * `next_token`: the visitor token the conversation gets once the code confirms the phone.
   */
  async phoneCode(
    visitor: ConversationRow,
    requestId: string,
  ): Promise<{ code: string; number: string; phone: string; expires_at: string; next_token: string }> {
    const number = await this.channels.numberOf(visitor.account_id);
    if (!number) throw new ApiError('conflict', 'This business has no WhatsApp number to confirm a phone with.');
    const { contact, conversation } = await this.customers.contactFor(visitor, requestId);
    if (contact.phone === null) throw new ApiError('conflict', 'Leave a phone number first.');
    if (contact.phone_confirmed) throw new ApiError('conflict', 'This phone number is already confirmed.');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const next = successorToken();
    const stored = await this.channels.newPhoneCode(
      visitor.account_id,
      conversation.id,
      contact.svc_id,
      contact.phone,
      code,
      PHONE_CODE_TTL_MS,
      next.hash,
    );
    return { code, number: number.number, phone: contact.phone, expires_at: stored.expires_at, next_token: next.token };
  }

  /**
   * The team sends an approved template (the console, MCP). Inside the 24-hour window always;
   * after it only with an active reply_whatsapp / future_whatsapp consent and a phone, else 409
   * with the reason. Queued durably with its `message.sent` (author team).
   */
  async sendTemplate(
    accountId: string,
    conversationId: number,
    template: { template: string; lang: string; params: string[] },
    requestId: string,
  ): Promise<{ message: ChatMessage }> {
    const row = await this.whatsappConversationOf(accountId, conversationId);
    const number = (await this.channels.numberOf(accountId)) as NonNullable<Awaited<ReturnType<ChannelsRepository['numberOf']>>>;
    const { contact } = await this.customers.contactFor(row, requestId);
    const consents = (await this.contacts.consents(contact.svc_id, accountContext(accountId, requestId)))?.consents ?? [];
    const hasWhatsappConsent = consents.some(
      (consent) => consent.active && (consent.purpose === 'reply_whatsapp' || consent.purpose === 'future_whatsapp'),
    );
    const refusal = whatsappRefusal('template', {
      lastCustomerAt: await this.channels.lastCustomerAt(accountId, row.id),
      now: new Date(),
      hasWhatsappConsent,
      phone: contact.phone,
    });
    if (refusal) throw new ApiError('conflict', REFUSALS[refusal]);
    const to = (contact.phone ?? row.customer_phone) as string;
    const text = [`[template ${template.template} (${template.lang})]`, ...template.params].join(' ');
    const message = await this.conversations.transaction(async (tx) => {
      const locked = (await tx.lock(accountId, row.id)) as ConversationRow;
      const added = await tx.addMessage(accountId, locked.id, {
        author: 'team',
        text,
        sendOnWhatsapp: false,
        event: (m) => this.events.sent(locked, contact, m as ChatMessage & { author: 'team' }),
      });
      await ChannelDeliveriesRepository.enqueue(tx.manager, accountId, locked.id, {
        kind: 'whatsapp',
        phoneNumberId: number.phone_number_id,
        message: { to, type: 'template', ...template },
      });
      return added;
    });
    return { message };
  }

  /** 409 `conflict` with the reason when a free-form team reply may not go out on WhatsApp now (the 24-hour rule). */
  async assertFreeFormAllowed(accountId: string, conversationId: number): Promise<void> {
    const refusal = whatsappRefusal('text', {
      lastCustomerAt: await this.channels.lastCustomerAt(accountId, conversationId),
      now: new Date(),
      hasWhatsappConsent: false,
      phone: null,
    });
    if (refusal) throw new ApiError('conflict', REFUSALS[refusal]);
  }

  async sendText(accountId: string, conversationId: number, text: string, requestId: string): Promise<{ message: ChatMessage }> {
    const row = await this.whatsappConversationOf(accountId, conversationId);
    await this.assertFreeFormAllowed(accountId, row.id);
    const { contact } = await this.customers.contactFor(row, requestId);
    const message = await this.conversations.transaction(async (tx) => {
      const locked = (await tx.lock(accountId, row.id)) as ConversationRow;
      return tx.addMessage(accountId, locked.id, {
        author: 'team',
        text,
        event: (m) => this.events.sent(locked, contact, m as ChatMessage & { author: 'team' }),
      });
    });
    return { message };
  }

  private async whatsappConversationOf(accountId: string, conversationId: number): Promise<ConversationRow> {
    const row = await this.conversations.get(accountId, conversationId);
    if (!row) throw new ApiError('not_found', `There is no conversation ${conversationId}.`);
    if (row.channel !== 'whatsapp' || !(await this.channels.numberOf(accountId))) throw new ApiError('conflict', REFUSALS.no_whatsapp);
    return row;
  }
}
