import { Inject, Injectable } from '@nestjs/common';
import { servicePool } from '@svc/internal-clients';
import { ApiError, APP_CONFIG, GATEWAY_CONTEXT_HEADER, unavailableError } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Dispatcher, Pool } from 'undici';
import type { Answer } from '../idempotency/idempotency';
import { GatewayConfig } from '../gateway.config';
import { relayedHeaders, unreachableReason } from './relayed-headers';
import { Upstream, UPSTREAMS } from './route-table';

/** Request headers a service needs; everything else (Authorization above all) stays at the gateway. */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'accept-language', 'user-agent', 'mcp-protocol-version'] as const;
function unavailable(request: FastifyRequest, upstream: Upstream, err: unknown): ApiError {
  request.log.warn({ upstream, reason: unreachableReason(err) }, 'upstream unavailable');
  return unavailableError();
}

/** Forwards calls to the owning service over pooled keep-alive connections. */
@Injectable()
export class UpstreamProxy {
  private readonly pools = new Map<Upstream, Pool>();

  constructor(@Inject(APP_CONFIG) config: GatewayConfig) {
    for (const [upstream, setting] of Object.entries(UPSTREAMS) as Array<[Upstream, keyof GatewayConfig]>) {
      this.pools.set(upstream, servicePool(String(config[setting]), { connections: 128, timeoutMs: config.UPSTREAM_TIMEOUT_MS }));
    }
  }

  /** `path`: the service's path and query string (the canonical request target below `/api/v1`). */
  async forward(upstream: Upstream, request: FastifyRequest, reply: FastifyReply, path: string, context: string): Promise<FastifyReply> {
    const response = await this.request(upstream, request, path, context);
    reply.code(response.statusCode).headers(relayedHeaders(response.headers));
    return reply.send(response.body);
  }

  /** Like `forward`, but the whole answer is read and returned (to be stored for an Idempotency-Key) instead of streamed. */
  async capture(upstream: Upstream, request: FastifyRequest, path: string, context: string): Promise<Answer> {
    const response = await this.request(upstream, request, path, context);
    try {
      return {
        status: response.statusCode,
        headers: relayedHeaders(response.headers),
        body: Buffer.from(await response.body.arrayBuffer()),
      };
    } catch (err) {
      throw unavailable(request, upstream, err);
    }
  }

  private async request(upstream: Upstream, request: FastifyRequest, path: string, context: string): Promise<Dispatcher.ResponseData> {
    const pool = this.pools.get(upstream) as Pool;
    const headers: Record<string, string> = { [GATEWAY_CONTEXT_HEADER]: context, 'x-request-id': request.id };
    const body = request.body instanceof Buffer ? request.body : undefined;
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers[name];
      // An empty JSON body is no body: the service must not be told one is coming.
      if (typeof value === 'string' && !(name === 'content-type' && body === undefined)) headers[name] = value;
    }
    try {
      return await pool.request({
        method: request.method as 'GET',
        path,
        headers,
        body,
      });
    } catch (err) {
      throw unavailable(request, upstream, err);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }
}
