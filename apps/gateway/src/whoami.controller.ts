import { createParamDecorator, ExecutionContext, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { API_ROUTES, WhoamiResponseDto } from '@svc/contracts';
import { ApiError, APP_CONFIG, PublicApiController, Route } from '@svc/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Principal } from './auth/authenticator';
import { GatewayConfig } from './gateway.config';

const WHOAMI_PATH = `/api/v1${API_ROUTES.whoami.get.path}`;

/** The principal the gateway pipeline authenticated for this call. */
function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('unauthorized', 'Send a valid API key: Authorization: Bearer svc_cust_…');
  return request.principal;
}

const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal =>
  principalOf(ctx.switchToHttp().getRequest<FastifyRequest>()),
);

@PublicApiController('Account')
export class WhoamiController {
  constructor(@Inject(APP_CONFIG) private readonly config: GatewayConfig) {}

  @Route(API_ROUTES.whoami.get)
  @ApiOperation({
    operationId: 'whoami',
    summary: 'The account and key making the call.',
    description:
      'A cheap way to check a key: the account (name, plan), the key (id, prefix), the web application address and the widget id for the chat snippet. Not a write: no rate limit.',
  })
  @ApiOkResponse({ type: WhoamiResponseDto })
  whoami(@CurrentPrincipal() principal: Principal): WhoamiResponseDto {
    return { account: principal.account, key: principal.key, app_url: this.config.APP_URL, widget: principal.widget };
  }
}

/**
 * Nest registers (and documents) GET /whoami; Fastify then calls the controller method itself.
 * The route has no guard, pipe or interceptor, and Nest's per-call pipeline that would run them
 * cost more than the rest of the call (issue 2's benchmark). HEAD keeps Nest's handler.
 */
export function serveWhoamiFromFastify(fastify: FastifyInstance, controller: WhoamiController): void {
  fastify.addHook('onRoute', (route) => {
    if (route.method === 'GET' && route.url === WHOAMI_PATH) route.handler = (request) => controller.whoami(principalOf(request));
  });
}
