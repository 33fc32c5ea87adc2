import { Controller, Param, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AccountNotFoundError, AccountsService, ApiKeyRow, KeyNotFoundError } from '@svc/accounts';
import { GatewayContext, INTERNAL_ROUTES, isUuid } from '@svc/contracts';
import { ApiError, Caller, GatewayContextGuard, InternalCallers, Route } from '@svc/platform';

function keyView(key: ApiKeyRow): { id: string; prefix: string; created_at: string } {
  return { id: key.id, prefix: key.prefix, created_at: key.created_at };
}

/** The account a console context names: a console member's account id is always a UUID. */
function accountIdOf(caller: GatewayContext): string {
  if (!isUuid(caller.account.id)) throw new ApiError('unauthorized', "This route is for the product's own services.");
  return caller.account.id;
}

const { account: ACCOUNT, keys: KEYS, createKey: CREATE_KEY, revokeKey: REVOKE_KEY } = INTERNAL_ROUTES.gateway;

/**
 * The console's view of what the gateway owns (accounts, plans, API keys), under `/internal/console/`
 * (not under /api/v1, not in the OpenAPI document, not routed by the Ingress). The console signs a
 * context for audience `gateway` naming the team member's account (signed by any other app: 403);
 * every route acts on that account only. A key revoked here is refused by every gateway within AUTH_CACHE_TTL_MS (5 s at most).
 */
@ApiExcludeController()
@Controller()
@UseGuards(GatewayContextGuard)
@InternalCallers('console')
export class ConsoleAccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Route(ACCOUNT)
  async account(@Caller() caller: GatewayContext) {
    return { account: await this.accountOf(accountIdOf(caller)) };
  }

  @Route(KEYS)
  async keys(@Caller() caller: GatewayContext) {
    return { keys: (await this.accounts.listKeys(accountIdOf(caller))).map(keyView) };
  }

  /** 201 (Nest's status of a POST). */
  @Route(CREATE_KEY)
  async createKey(@Caller() caller: GatewayContext) {
    const created = await this.accounts.createKey((await this.accountOf(accountIdOf(caller))).id);
    return { key: keyView(created.key), api_key: created.apiKey };
  }

  @Route(REVOKE_KEY)
  async revokeKey(@Caller() caller: GatewayContext, @Param('id') id: string) {
    const accountId = accountIdOf(caller);
    try {
      const key = await this.accounts.revokeKey(id, accountId);
      return { key: { ...keyView(key), revoked_at: key.revoked_at } };
    } catch (err) {
      if (err instanceof KeyNotFoundError) throw new ApiError('not_found', 'There is no such key.');
      throw err;
    }
  }

  private async accountOf(id: string) {
    try {
      return await this.accounts.getAccountWithWidget(id);
    } catch (err) {
      if (err instanceof AccountNotFoundError) throw new ApiError('not_found', 'There is no such account.');
      throw err;
    }
  }
}
