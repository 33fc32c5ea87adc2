import { InjectLogger } from '@svc/platform';
import { Inject, Injectable } from '@nestjs/common';
import { EventContact } from '@svc/contracts';
import { ContactsClient } from '@svc/internal-clients';
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ChatEvents } from '../conversations/chat-events';
import { ConversationRow, ConversationsRepository, ConversationTransaction } from '../conversations/conversations.repository';
import { accountContext } from '../conversations/customers.service';
import { confirmedTokenHash, successorToken } from '../conversations/visitor-token';
import { ChannelsRepository } from './channels.repository';
import { ChannelDeliveriesRepository } from './channel-deliveries.repository';
import { confirmationEmail, confirmationPage } from './email-texts';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';

/** A confirmation link lasts 24 hours. */
export const EMAIL_LINK_TTL_MS = 24 * 60 * 60 * 1000;

const hashOf = (token: string): Buffer => createHash('sha256').update(token).digest();

/**
 * Email confirmation: an unconfirmed address left in the chat gets a single-use link by email
 * (queued in the same transaction as the change, sent by the delivery worker, retried while SMTP
 * is down); opening it confirms the address through contacts-api (`contact.confirmed`).
 */
@Injectable()
export class EmailConfirmationService {
  private readonly appUrl: string;

  constructor(
    private readonly channels: ChannelsRepository,
    private readonly conversations: ConversationsRepository,
    private readonly contacts: ContactsClient,
    private readonly events: ChatEvents,
    @InjectLogger('email') private readonly logger: Logger,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'APP_URL'>,
  ) {
    this.appUrl = config.APP_URL;
  }

  /**
   * In the caller's transaction: a link for `email` when it is the customer's unconfirmed address
   * (an address the business sent as confirmed is never checked again). When one was queued, the
   * visitor token the conversation gets once it is confirmed (for the widget that left the address
   * only); else null.
   */
  async queueIfUnconfirmed(
    tx: ConversationTransaction,
    row: ConversationRow,
    contact: EventContact,
    email: string,
  ): Promise<string | null> {
    if (contact.email === null || contact.email.toLowerCase() !== email.toLowerCase() || contact.email_confirmed) return null;
    const token = randomBytes(32).toString('base64url');
    const next = successorToken();
    await ChannelsRepository.newEmailConfirmation(tx.manager, {
      tokenHash: hashOf(token),
      accountId: row.account_id,
      svcId: contact.svc_id,
      email: contact.email,
      conversationId: row.id,
      ttlMs: EMAIL_LINK_TTL_MS,
      nextTokenHash: next.hash,
    });
    const link = `${this.appUrl.replace(/\/+$/, '')}/chat/confirm/${token}`;
    const message = confirmationEmail(contact.lang ?? row.lang, row.business_name, link);
    await ChannelDeliveriesRepository.enqueue(tx.manager, row.account_id, row.id, {
      kind: 'email',
      email: { to: contact.email, ...message },
    });
    return next.token;
  }

  /**
   * Opening a link (GET): a page with a "Confirm" button, and nothing changed (mail scanners
   * prefetch links). Used, expired or unknown links show a page saying so.
   */
  async show(token: string): Promise<{ status: number; html: string }> {
    const { link, row, lang, values } = await this.find(token);
    if (!link || !row || link.used || link.expired) return { status: link ? 410 : 404, html: confirmationPage(lang, 'used', values) };
    return { status: 200, html: confirmationPage(lang, 'ask', values) };
  }

  /** The button's POST: confirms once. Used, expired or unknown links change nothing. */
  async confirm(token: string, requestId: string): Promise<{ status: number; html: string }> {
    const tokenHash = hashOf(token);
    const { link, row, lang, values } = await this.find(token);
    if (!link || !row || link.used || link.expired || !(await this.channels.useEmailConfirmation(tokenHash))) {
      return { status: link ? 410 : 404, html: confirmationPage(lang, 'used', values) };
    }
    try {
      const result = await this.contacts.confirm(
        link.customer_svc_id,
        { confirmed: 'email', value: link.email, conversation: this.events.conversation(row) },
        accountContext(link.account_id, requestId),
      );
      if (result === 'gone' || result === 'changed') return { status: 409, html: confirmationPage(lang, 'changed', values) };
      // The conversation is now the confirmed customer's: a token copied before reads nothing more of it.
      await this.conversations.transaction((tx) => tx.rotateToken(row.account_id, row.id, confirmedTokenHash(link.next_token_hash)));
      return { status: 200, html: confirmationPage(lang, 'confirmed', values) };
    } catch (err) {
      // contacts-api is down: the link stays usable.
      await this.channels.releaseEmailConfirmation(tokenHash);
      this.logger.warn({ request_id: requestId, err: (err as Error).message }, 'email confirmation deferred');
      return { status: 503, html: confirmationPage(lang, 'later', values) };
    }
  }

  private async find(token: string) {
    const link = /^[A-Za-z0-9_-]{43}$/.test(token) ? await this.channels.emailConfirmation(hashOf(token)) : undefined;
    const row = link ? await this.conversations.get(link.account_id, link.conversation_id) : undefined;
    return { link, row, lang: row?.lang ?? null, values: { business: row?.business_name ?? '', email: link?.email ?? '' } };
  }
}
