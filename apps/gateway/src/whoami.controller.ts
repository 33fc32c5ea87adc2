import { Controller, createParamDecorator, ExecutionContext, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WhoamiResponseDto } from '@svc/contracts';
import { ApiError, APP_CONFIG } from '@svc/platform';
import type { FastifyRequest } from 'fastify';
import { Principal } from './auth/authenticator';
import { GatewayConfig } from './gateway.config';

/** The principal the gateway pipeline authenticated for this call. */
const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new ApiError('unauthorized', 'Send a valid API key: Authorization: Bearer svc_cust_…');
  return principal;
});

@ApiTags('Account')
@ApiBearerAuth()
@Controller('whoami')
export class WhoamiController {
  constructor(@Inject(APP_CONFIG) private readonly config: GatewayConfig) {}

  @Get()
  @ApiOperation({ operationId: 'whoami', summary: 'The account and key making the call.' })
  @ApiOkResponse({ type: WhoamiResponseDto })
  whoami(@CurrentPrincipal() principal: Principal): WhoamiResponseDto {
    return { account: principal.account, key: principal.key, app_url: this.config.APP_URL };
  }
}
