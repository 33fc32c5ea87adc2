import { servicePool } from '@svc/internal-clients';
import { unavailableError } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import { relayedHeaders, unreachableReason } from './relayed-headers';

/**
 * An app the gateway passes browser traffic to unchanged, without the API's key checks (the chat,
 * the console): the request's path and the headers named, the client's address as the gateway sees
 * it (TRUST_PROXY) in X-Forwarded-For, the answer streamed back as it comes (long-lived event
 * streams: no cap on connections, no body timeout). Closing the client's connection closes the
 * upstream one; an app that cannot be reached is 503 `unavailable` (with `unavailableMessage`
 * when given). Each app's proxy adds how its paths are routed (`install`).
 */
export class PassThroughUpstream {
  private readonly pool: Pool;

  constructor(
    private readonly name: string,
    url: string,
    headersTimeoutMs: number,
    private readonly forwardedHeaders: readonly string[],
    private readonly unavailableMessage?: string,
  ) {
    this.pool = servicePool(url, { connections: null, timeoutMs: headersTimeoutMs, bodyTimeoutMs: 0 });
  }

  async forward(request: FastifyRequest, reply: FastifyReply, body: Buffer | Readable | undefined): Promise<FastifyReply> {
    const headers: Record<string, string> = { 'x-request-id': request.id, 'x-forwarded-for': request.ip };
    for (const name of this.forwardedHeaders) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const abort = new AbortController();
    reply.raw.once('close', () => abort.abort());
    let response;
    try {
      response = await this.pool.request({ method: request.method as 'GET', path: request.url, headers, body, signal: abort.signal });
    } catch (err) {
      request.log.warn({ upstream: this.name, reason: unreachableReason(err) }, 'upstream unavailable');
      throw unavailableError(this.unavailableMessage);
    }
    reply.code(response.statusCode).headers(relayedHeaders(response.headers as IncomingHttpHeaders));
    response.body.on('error', () => undefined);
    return reply.send(response.body);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
