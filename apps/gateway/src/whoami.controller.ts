import { Inject, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { API_ROUTES, WhoamiResponseDto } from '@svc/contracts';
import { ApiError, PublicApiController, Route } from '@svc/platform';
import type { FastifyRequest } from 'fastify';
import { Principal } from './auth/authenticator';
import { GATEWAY_CONFIG, GatewayConfig } from './gateway.config';

/** The `GET /whoami` body of a key (also what mcp-server reads through `GET /internal/whoami`). */
export function whoamiOf(principal: Principal, appUrl: string): WhoamiResponseDto {
  return { account: principal.account, key: principal.key, app_url: appUrl, widget: principal.widget };
}

/**
 * The gateway's own API route. The pipeline's onRequest hook has authenticated the call already
 * (`request.principal`), so the route has no guard, pipe or interceptor, and the principal is read
 * from the request (`@Req()`, which no pipe runs on) rather than by a custom parameter decorator,
 * which would run the global validation pipe on every call: this is the benchmark's path
 * (bench/README.md "Gateway").
 */
@PublicApiController('Account')
export class WhoamiController {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  @Route(API_ROUTES.whoami.get)
  @ApiOperation({
    operationId: 'whoami',
    summary: 'The account and key making the call.',
    description:
      'A cheap way to check a key: the account (name, plan), the key (id, prefix), the web application address and the widget id for the chat snippet. Not a write: no rate limit.',
  })
  @ApiOkResponse({ type: WhoamiResponseDto })
  whoami(@Req() request: FastifyRequest): WhoamiResponseDto {
    if (!request.principal) throw new ApiError('unauthorized', 'Send a valid API key: Authorization: Bearer svc_cust_…');
    return whoamiOf(request.principal, this.config.APP_URL);
  }
}
