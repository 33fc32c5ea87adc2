import { Controller, Get, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AccountsRepository } from '@svc/accounts';
import { GatewayContext, WhoamiResponseDto, WriteCountResponse } from '@svc/contracts';
import { ApiError, Caller, GatewayContextGuard, InternalCallers } from '@svc/platform';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../auth/authenticator';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { GatewayPipeline } from '../gateway.pipeline';
import { whoamiOf } from '../whoami.controller';

/**
 * What mcp-server needs from the gateway, which owns keys and the write limits (internal: not
 * under /api/v1, not in the OpenAPI document, not routed by the Ingress). Each takes a context
 * signed for the gateway by mcp-server (another app's: 403) naming the key the MCP call came with
 * (mcp-server passes on the one the gateway gave it):
 * - `GET /internal/whoami`: exactly the REST `GET /whoami` body for that key (404 once revoked).
 * - `POST /internal/writes`: counts one write of that key in the same limits as REST writes (the
 *   same Redis log, the same exemptions); a refused write does not count.
 */
@ApiExcludeController()
@Controller('internal')
@UseGuards(GatewayContextGuard)
@InternalCallers('mcp-server')
export class McpSupportController {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly pipeline: GatewayPipeline,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('whoami')
  async whoami(@Caller() { keyId }: GatewayContext): Promise<WhoamiResponseDto> {
    const row = await this.accounts.findPrincipalByKeyId(keyId);
    if (!row) throw new ApiError('not_found', 'There is no active key with this id.');
    return whoamiOf(principalOf(row), this.config.APP_URL);
  }

  @Post('writes')
  @HttpCode(200)
  async writes(@Caller() { keyId }: GatewayContext, @Req() request: FastifyRequest): Promise<WriteCountResponse> {
    const decision = await this.pipeline.countWrite(keyId, request);
    return {
      allowed: decision.allowed,
      limit: decision.limit,
      remaining: decision.remaining,
      reset_seconds: decision.resetSeconds,
      retry_after_seconds: decision.retryAfterSeconds,
    };
  }
}
