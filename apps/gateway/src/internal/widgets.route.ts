import { AccountsRepository } from '@svc/accounts';
import { WIDGET_ID, WidgetAccountResponse } from '@svc/contracts';
import { ApiError, InternalAuth, verifiedCaller } from '@svc/platform';
import type { FastifyInstance } from 'fastify';

/**
 * `GET /internal/widgets/:widget` for the chat (not under /api/v1, not in the OpenAPI document,
 * not routed by the Ingress): the account a public widget id belongs to. The gateway owns accounts;
 * the chat asks here instead of reading schema `gateway`. Needs a context the chat signed (another
 * app's: 403); the account named in it is not used.
 */
export function serveWidgetLookup(fastify: FastifyInstance, accounts: AccountsRepository, auth: InternalAuth): void {
  fastify.get<{ Params: { widget: string } }>('/internal/widgets/:widget', async (request): Promise<WidgetAccountResponse> => {
    await verifiedCaller(request, auth, ['chat']);
    const { widget } = request.params;
    const account = WIDGET_ID.test(widget) ? await accounts.findAccountByWidget(widget) : undefined;
    if (!account) throw new ApiError('not_found', 'There is no widget with this id.');
    return { account };
  });
}
