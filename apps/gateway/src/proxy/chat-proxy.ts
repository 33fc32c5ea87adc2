import { ApiError } from '@svc/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { GatewayConfig } from '../gateway.config';

/** The chat's public paths: its widget, demo page, visitor API (`/chat/v1/*`), email confirmation links and the WhatsApp webhook. */
export const CHAT_PREFIX = '/chat/';
/** What the chat needs from a visitor's browser: its token, the page's origin, the stream position. */
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'accept-language',
  'user-agent',
  'authorization',
  'origin',
  'last-event-id',
  'access-control-request-method',
  'access-control-request-headers',
  // The WhatsApp Cloud API's signature of the raw body (the body is forwarded byte for byte).
  'x-hub-signature-256',
] as const;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'date', 'x-request-id']);

/**
 * `/chat/*` to the chat app, unchanged and without the API's key checks (visitors carry their own
 * token, which the chat checks). Responses are streamed as they come (the event stream is
 * long-lived: no body timeout), and closing the visitor's connection closes the upstream one.
 */
export class ChatProxy {
  private readonly pool: Pool;

  constructor(config: GatewayConfig) {
    this.pool = new Pool(config.CHAT_URL, {
      // Each open event stream holds a connection for as long as the visitor stays: no cap here,
      // or the streams past it would wait for others to end.
      connections: null,
      keepAliveTimeout: 10_000,
      connect: { timeout: 2_000 },
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: 0,
    });
  }

  install(fastify: FastifyInstance): void {
    fastify.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${CHAT_PREFIX}*`,
      handler: (request, reply) => this.forward(request, reply),
    });
  }

  private async forward(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    // The visitor's address as the gateway sees it (behind its TRUST_PROXY): the chat counts new conversations by it.
    const headers: Record<string, string> = { 'x-request-id': request.id, 'x-forwarded-for': request.ip };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const abort = new AbortController();
    reply.raw.once('close', () => abort.abort());
    let response;
    try {
      response = await this.pool.request({
        method: request.method as 'GET',
        path: request.url,
        headers,
        body: request.body instanceof Buffer ? request.body : undefined,
        signal: abort.signal,
      });
    } catch (err) {
      request.log.warn({ upstream: 'chat', reason: (err as { code?: string }).code ?? String(err) }, 'upstream unavailable');
      throw new ApiError('unavailable', 'The service is temporarily unavailable; retry shortly.', undefined, { 'retry-after': '1' });
    }
    reply.code(response.statusCode);
    for (const [name, value] of Object.entries(response.headers as IncomingHttpHeaders)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
    }
    response.body.on('error', () => undefined);
    return reply.send(response.body);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
