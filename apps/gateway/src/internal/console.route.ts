import { AccountNotFoundError, AccountsService, ApiKeyRow, KeyNotFoundError } from '@svc/accounts';
import { GatewayContext, INTERNAL_ROUTES, isUuid } from '@svc/contracts';
import { ApiError, InternalAuth, verifiedCaller } from '@svc/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';

function keyView(key: ApiKeyRow): { id: string; prefix: string; created_at: string } {
  return { id: key.id, prefix: key.prefix, created_at: key.created_at };
}

/**
 * The console's view of what the gateway owns (accounts, plans, API keys), under `/internal/console/`
 * (not under /api/v1, not in the OpenAPI document, not routed by the Ingress). The console signs a
 * context for audience `gateway` naming the team member's account (signed by any other app: 403);
 * every route acts on that account only. A key revoked here is refused by every gateway within AUTH_CACHE_TTL_MS (5 s at most).
 */
export function serveConsoleRoutes(fastify: FastifyInstance, accounts: AccountsService, auth: InternalAuth): void {
  const caller = async (request: FastifyRequest): Promise<GatewayContext> => {
    const context = await verifiedCaller(request, auth, ['console']);
    if (!isUuid(context.account.id)) throw new ApiError('unauthorized', "This route is for the product's own services.");
    return context;
  };
  const account = async (id: string) => {
    try {
      return await accounts.getAccountWithWidget(id);
    } catch (err) {
      if (err instanceof AccountNotFoundError) throw new ApiError('not_found', 'There is no such account.');
      throw err;
    }
  };

  const { account: ACCOUNT, keys: KEYS, createKey: CREATE_KEY, revokeKey: REVOKE_KEY } = INTERNAL_ROUTES.gateway;
  fastify.route({
    method: ACCOUNT.method,
    url: ACCOUNT.path,
    handler: async (request) => ({ account: await account((await caller(request)).account.id) }),
  });

  fastify.route({
    method: KEYS.method,
    url: KEYS.path,
    handler: async (request) => {
      const { account: acc } = await caller(request);
      return { keys: (await accounts.listKeys(acc.id)).map(keyView) };
    },
  });

  fastify.route({
    method: CREATE_KEY.method,
    url: CREATE_KEY.path,
    handler: async (request, reply) => {
      const { account: acc } = await caller(request);
      const created = await accounts.createKey((await account(acc.id)).id);
      return reply.code(201).send({ key: keyView(created.key), api_key: created.apiKey });
    },
  });

  fastify.route<{ Params: { id: string } }>({
    method: REVOKE_KEY.method,
    url: REVOKE_KEY.path,
    handler: async (request) => {
      const { account: acc } = await caller(request);
      try {
        const key = await accounts.revokeKey(request.params.id, acc.id);
        return { key: { ...keyView(key), revoked_at: key.revoked_at } };
      } catch (err) {
        if (err instanceof KeyNotFoundError) throw new ApiError('not_found', 'There is no such key.');
        throw err;
      }
    },
  });
}
