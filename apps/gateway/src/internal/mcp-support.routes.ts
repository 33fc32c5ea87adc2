import { AccountsRepository } from '@svc/accounts';
import { GatewayContext, WhoamiResponseDto, WriteCountResponse } from '@svc/contracts';
import { ApiError, InternalAuth, verifiedCaller } from '@svc/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { principalOf } from '../auth/authenticator';
import { GatewayPipeline } from '../gateway.pipeline';
import { WhoamiController } from '../whoami.controller';

/** The key and account a context mcp-server signed for the gateway speaks for; 401 without one, 403 from another app. */
function callerOf(request: FastifyRequest, auth: InternalAuth): Promise<GatewayContext> {
  return verifiedCaller(request, auth, ['mcp-server']);
}

/**
 * What mcp-server needs from the gateway, which owns keys and the write limits (internal: not
 * under /api/v1, not in the OpenAPI document, not routed by the Ingress). Each takes a context
 * signed for the gateway naming the key the MCP call came with (mcp-server passes on the one the
 * gateway gave it):
 * - `GET /internal/whoami`: exactly the REST `GET /whoami` body for that key (404 once revoked).
 * - `POST /internal/writes`: counts one write of that key in the same limits as REST writes (the
 *   same Redis log, the same exemptions); a refused write does not count.
 */
export function serveMcpSupport(
  fastify: FastifyInstance,
  accounts: AccountsRepository,
  auth: InternalAuth,
  whoami: WhoamiController,
  pipeline: GatewayPipeline,
): void {
  fastify.get('/internal/whoami', async (request): Promise<WhoamiResponseDto> => {
    const { keyId } = await callerOf(request, auth);
    const row = await accounts.findPrincipalByKeyId(keyId);
    if (!row) throw new ApiError('not_found', 'There is no active key with this id.');
    return whoami.whoami(principalOf(row));
  });
  fastify.post('/internal/writes', async (request): Promise<WriteCountResponse> => {
    const { keyId } = await callerOf(request, auth);
    const decision = await pipeline.countWrite(keyId, request);
    return {
      allowed: decision.allowed,
      limit: decision.limit,
      remaining: decision.remaining,
      reset_seconds: decision.resetSeconds,
      retry_after_seconds: decision.retryAfterSeconds,
    };
  });
}
