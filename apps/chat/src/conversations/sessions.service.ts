import { Injectable } from '@nestjs/common';
import { ChatSessionResponse, CreateChatSessionDto, IdentifiedCustomer } from '@svc/contracts';
import { IdentityClient } from '@svc/internal-clients';
import { ApiError } from '@svc/platform';
import { NewConversationThrottle } from '../visitor/new-conversation-throttle';
import { OriginPolicy } from '../visitor/origin-policy';
import { WidgetAccounts } from '../visitor/widget-accounts';
import { conversationView } from './conversation-view';
import { ConversationCustomer, ConversationRow, ConversationsRepository } from './conversations.repository';
import { accountContext } from './customers.service';
import { isVisitorToken, newVisitorToken, visitorTokenHash } from './visitor-token';

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
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly widgets: WidgetAccounts,
    private readonly origins: OriginPolicy,
    private readonly identity: IdentityClient,
    private readonly throttle: NewConversationThrottle,
  ) {}

  /**
   * 200 with the same conversation when the token given is still valid for this widget and the
   * page's pass (or its absence) fits it; otherwise 201 with a new conversation and token. A pass
   * that identifies nobody is ignored: the visitor is anonymous. New conversations are limited per address.
   */
  async open(dto: CreateChatSessionDto, request: SessionRequest): Promise<{ created: boolean; body: ChatSessionResponse }> {
    const account = await this.widgets.resolve(dto.widget, request.requestId);
    if (!account) throw new ApiError('not_found', 'There is no chat with this widget id.');
    await this.origins.check(account.id, request.origin);
    const context = accountContext(account.id, request.requestId);
    const customer = dto.identity ? await this.identity.verify(dto.identity, context) : null;

    const given = dto.token && isVisitorToken(dto.token) ? await this.conversations.byTokenHash(visitorTokenHash(dto.token)) : undefined;
    if (given && given.account_id === account.id && this.samePerson(given, customer)) {
      const row =
        customer && given.customer_svc_id === null
          ? await this.conversations.attachCustomer(account.id, given.id, identifiedCustomer(customer))
          : given;
      return { created: false, body: { token: dto.token as string, ...(await conversationView(this.conversations, row)) } };
    }
    await this.throttle.take(request.address);
    const token = newVisitorToken();
    const row = await this.conversations.create(
      account.id,
      visitorTokenHash(token),
      request.lang,
      customer ? identifiedCustomer(customer) : null,
      account.name,
    );
    return { created: true, body: { token, ...(await conversationView(this.conversations, row)) } };
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
