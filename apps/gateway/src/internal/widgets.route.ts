import { AccountsRepository } from '@svc/accounts';
import { WIDGET_ID, WidgetAccountResponse } from '@svc/contracts';
import { ApiError, GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import type { FastifyInstance } from 'fastify';

/**
 * `GET /internal/widgets/:widget` for the chat (not under /api/v1, not in the OpenAPI document,
 * not routed by the Ingress): the account a public widget id belongs to. The gateway owns accounts;
 * the chat asks here instead of reading schema `gateway`. Needs a context signed with
 * INTERNAL_AUTH_SECRET (only our services hold it); the account named in it is not used.
 */
export function serveWidgetLookup(fastify: FastifyInstance, accounts: AccountsRepository, auth: InternalAuth): void {
  fastify.get<{ Params: { widget: string } }>('/internal/widgets/:widget', async (request): Promise<WidgetAccountResponse> => {
    const token = request.headers[GATEWAY_CONTEXT_HEADER];
    const signed =
      typeof token === 'string' &&
      (await auth.verify(token, 'gateway').then(
        () => true,
        () => false,
      ));
    if (!signed) throw new ApiError('unauthorized', "This route is for the product's own services.");
    const { widget } = request.params;
    const account = WIDGET_ID.test(widget) ? await accounts.findAccountByWidget(widget) : undefined;
    if (!account) throw new ApiError('not_found', 'There is no widget with this id.');
    return { account };
  });
}
