import { Inject, Injectable } from '@nestjs/common';
import { ChatSessionResponse, CreateChatSessionDto, IdentifiedCustomer } from '@svc/contracts';
import { IdentityClient } from '@svc/internal-clients';
import { ApiError } from '@svc/platform';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { NewConversationThrottle } from '../visitor/new-conversation-throttle';
import { OriginPolicy } from '../visitor/origin-policy';
import { WidgetAccounts } from '../visitor/widget-accounts';
import { conversationView } from './conversation-view';
import {
  ConversationCustomer,
  ConversationRow,
  ConversationsRepository,
  ConversationTransaction,
  SessionConversation,
} from './conversations.repository';
import { accountContext } from './customers.service';
import { isVisitorToken, newVisitorToken, tokenLifeLeftMs, visitorTokenHash, visitorTokenMaxAgeMs } from './visitor-token';

export interface SessionRequest {
  /** The visitor's address (behind the proxies TRUST_PROXY names): what new conversations are counted by. */
  address: string;
  origin: string | undefined;
  lang: string;
  requestId: string;
}

const identifiedCustomer = (customer: IdentifiedCustomer): ConversationCustomer => ({
  svcId: customer.svc_id,
  identified: true,
  name: customer.name,
  email: customer.email,
  phone: customer.phone,
});

/** Visitor sessions: a widget id (and perhaps a pass, or an earlier token) → a conversation and its token. */
@Injectable()
export class SessionsService {
  private readonly maxAgeMs: number;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly widgets: WidgetAccounts,
    private readonly origins: OriginPolicy,
    private readonly identity: IdentityClient,
    private readonly throttle: NewConversationThrottle,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'VISITOR_TOKEN_MAX_AGE'>,
  ) {
    this.maxAgeMs = visitorTokenMaxAgeMs(config);
  }

  /**
   * 200 with the same conversation when the token given is still valid for this widget and the
   * page's pass (or its absence) fits it; otherwise 201 with a new conversation and token. A pass
   * that identifies nobody is ignored: the visitor is anonymous. New conversations are limited per address.
   *
   * A token never changes hands (docs/chat.md "Visitor tokens"): when a pass makes an anonymous
   * conversation its customer's, the conversation gets a new token, given in this answer only. A
   * token past VISITOR_TOKEN_MAX_AGE, or the one a conversation had before its last rotation,
   * reopens it (with a new token) only with a pass for its identified customer: its bearer alone
   * (a copy of it) gets nothing of it.
   */
  async open(dto: CreateChatSessionDto, request: SessionRequest): Promise<{ created: boolean; body: ChatSessionResponse }> {
    const account = await this.widgets.resolve(dto.widget, request.requestId);
    if (!account) throw new ApiError('not_found', 'There is no chat with this widget id.');
    await this.origins.check(account.id, request.origin);
    const context = accountContext(account.id, request.requestId);
    const customer = dto.identity ? await this.identity.verify(dto.identity, context) : null;

    const token = dto.token;
    if (token && isVisitorToken(token)) {
      // Under the conversation's lock: of sessions opened at once with one token, one rotates it, and each token goes to one caller.
      const resumed = await this.conversations.transaction(async (tx) => {
        const given = await tx.lockByToken(visitorTokenHash(token));
        return given && given.account_id === account.id ? this.resume(tx, given, token, customer) : undefined;
      });
      if (resumed) return { created: false, body: { token: resumed.token, ...(await conversationView(this.conversations, resumed.row)) } };
    }
    await this.throttle.take(request.address);
    const fresh = newVisitorToken();
    const row = await this.conversations.create(
      account.id,
      visitorTokenHash(fresh),
      request.lang,
      customer ? identifiedCustomer(customer) : null,
      account.name,
    );
    return { created: true, body: { token: fresh, ...(await conversationView(this.conversations, row)) } };
  }

  /** The conversation `given` (locked) with the token to use from now on, or undefined: a new conversation. */
  private async resume(
    tx: ConversationTransaction,
    given: SessionConversation,
    token: string,
    customer: IdentifiedCustomer | null,
  ): Promise<{ token: string; row: ConversationRow } | undefined> {
    const valid = given.token_current && tokenLifeLeftMs(given, this.maxAgeMs) > 0;
    if (valid && this.samePerson(given, customer)) {
      // A pass makes the anonymous conversation its customer's: a new token, so that a copy of the old one reads nothing of theirs.
      if (customer && given.customer_svc_id === null) return this.rotate(tx, given, identifiedCustomer(customer));
      return { token, row: given };
    }
    if (!valid && customer && given.customer_identified && given.customer_svc_id === customer.svc_id) return this.rotate(tx, given);
    return undefined;
  }

  private async rotate(
    tx: ConversationTransaction,
    given: ConversationRow,
    customer?: ConversationCustomer,
  ): Promise<{ token: string; row: ConversationRow } | undefined> {
    const token = newVisitorToken();
    const row = await tx.rotateToken(given.account_id, given.id, visitorTokenHash(token), customer);
    return row ? { token, row } : undefined;
  }

  /**
   * An identified customer's conversation is resumed only with a pass for that same customer (a
   * shared browser: the next person sees nothing of it); a pass naming someone else than an
   * anonymous chat's customer starts a new conversation too (never merged automatically).
   */
  private samePerson(row: ConversationRow, customer: IdentifiedCustomer | null): boolean {
    if (row.customer_identified) return customer !== null && row.customer_svc_id === customer.svc_id;
    return !customer || row.customer_svc_id === null;
  }
}
