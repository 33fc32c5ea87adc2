import { Inject, Injectable } from '@nestjs/common';
import {
  API_PLAN,
  EventContact,
  GatewayContext,
  IdentifiedCustomer,
  IdentityPassResponseDto,
  VerifyIdentityPassResponse,
} from '@svc/contracts';
import { ApiError, APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { ContactsClient } from '@svc/internal-clients';
import { IssuedPassesRepository } from './issued-passes.repository';
import { PassRefusal, PassTokenService } from './pass-token.service';

function identified(contact: EventContact): IdentifiedCustomer {
  const { svc_id, ref, name, email, email_confirmed, phone, phone_confirmed } = contact;
  return { svc_id, ref, name, email, email_confirmed, phone, phone_confirmed };
}

/**
 * The context under which identity-issuer looks a pass's customer up for the chat: it acts for
 * the widget's account, not for an API key. Only the account id is known here; services behind
 * the gateway scope by it and read neither the name nor the plan.
 */
function widgetContext(accountId: string, requestId: string): GatewayContext {
  return { account: { id: accountId, name: '', plan: API_PLAN }, keyId: 'identity-issuer', requestId };
}

@Injectable()
export class IdentityService {
  constructor(
    @Inject(ContactsClient) private readonly contacts: Pick<ContactsClient, 'byRef' | 'bySvcId'>,
    private readonly tokens: PassTokenService,
    @Inject(IssuedPassesRepository) private readonly passes: Pick<IssuedPassesRepository, 'record'>,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  /** `POST /contacts/{ref}/identity`: a pass for the caller's customer `ref`. */
  async issue(caller: GatewayContext, ref: string): Promise<IdentityPassResponseDto> {
    const contact = await this.contacts.byRef(ref, caller);
    if (!contact) throw new ApiError('not_found', `There is no customer with ref ${JSON.stringify(ref)}.`);
    const pass = await this.tokens.issue(caller.account.id, contact.svc_id);
    const { expires_at } = await this.passes.record({ ...pass, accountId: caller.account.id, svcId: contact.svc_id });
    return { token: pass.token, expires_at };
  }

  /**
   * For the chat: who the pass found by the widget of `accountId` identifies. Anything wrong with
   * the pass, or a customer erased since, identifies nobody; the reason is logged, the token never.
   */
  async verify(caller: GatewayContext, token: string, accountId: string): Promise<VerifyIdentityPassResponse> {
    const check = await this.tokens.verify(token, accountId);
    if (!check.valid) return this.nobody(caller, accountId, check.reason);
    const contact = await this.contacts.bySvcId(check.svcId, widgetContext(accountId, caller.requestId));
    if (!contact) return this.nobody(caller, accountId, 'customer_erased', check.jti);
    return { customer: identified(contact) };
  }

  private nobody(
    caller: GatewayContext,
    accountId: string,
    reason: PassRefusal | 'customer_erased',
    jti?: string,
  ): VerifyIdentityPassResponse {
    this.logger.info(
      { request_id: caller.requestId, account_id: accountId, reason, ...(jti ? { jti } : {}) },
      'same-browser pass identifies nobody',
    );
    return { customer: null };
  }
}
