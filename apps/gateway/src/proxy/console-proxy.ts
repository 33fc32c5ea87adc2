import { ApiError, sendError } from '@svc/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { GatewayConfig } from '../gateway.config';
import { canonicalPath } from './canonical-path';

/** Paths the gateway keeps (the API, the chat, MCP, its own internal routes and probes); every other path is the console's. */
const NOT_CONSOLE = /^\/(api|chat|mcp|internal|healthz|readyz|metrics)(\/|\?|$)/;
/** What the console needs from a team member's browser: its session cookie, CSRF token, the body's type and the page's origin. */
const FORWARDED_REQUEST_HEADERS = ['cookie', 'content-type', 'content-length', 'accept', 'accept-language', 'user-agent', 'origin', 'referer', 'x-csrf-token', 'last-event-id'] as const;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'date', 'x-request-id']);

/**
 * Whether a request's URL is the console's, judged on the canonical path the gateway's routes see
 * (`/%61pi/v1/…` is the API's). A path with no single meaning stays with the gateway, which refuses it.
 */
export function isConsolePath(url: string): boolean {
  const query = url.indexOf('?');
  const canonical = canonicalPath(query === -1 ? url : url.slice(0, query));
  return !('refused' in canonical) && !NOT_CONSOLE.test(canonical.path);
}

/**
 * The team's web console at `{app_url}/` (contract "One public origin"): every path the gateway
 * does not keep goes to the console app unchanged, without the API's key checks (the console checks
 * its own sessions). Forwarded from an onRequest hook, so that no gateway route (and no 404/405 of
 * the API) is shadowed by a catch-all; bodies stream through as they come.
 */
export class ConsoleProxy {
  private readonly pool: Pool;

  constructor(config: GatewayConfig) {
    this.pool = new Pool(config.CONSOLE_URL, {
      // The inbox's live stream holds a connection while a member keeps the page open.
      connections: null,
      keepAliveTimeout: 10_000,
      connect: { timeout: 2_000 },
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: 0,
    });
  }

  install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', async (request, reply) => {
      if (!isConsolePath(request.url)) return;
      try {
        await this.forward(request, reply);
      } catch (err) {
        sendError(request, reply, err);
      }
      return reply;
    });
  }

  private async forward(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // The client's address as the gateway sees it (TRUST_PROXY): the console throttles failed sign-ins by it.
    const headers: Record<string, string> = { 'x-request-id': request.id, 'x-forwarded-for': request.ip };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const abort = new AbortController();
    reply.raw.once('close', () => abort.abort());
    const hasBody = !['GET', 'HEAD', 'OPTIONS'].includes(request.method);
    let response;
    try {
      response = await this.pool.request({
        method: request.method as 'GET',
        path: request.url,
        headers,
        body: hasBody ? request.raw : undefined,
        signal: abort.signal,
      });
    } catch (err) {
      request.log.warn({ upstream: 'console', reason: (err as { code?: string }).code ?? String(err) }, 'upstream unavailable');
      throw new ApiError('unavailable', 'The console is temporarily unavailable; retry shortly.', undefined, { 'retry-after': '1' });
    }
    reply.code(response.statusCode);
    for (const [name, value] of Object.entries(response.headers as IncomingHttpHeaders)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
    }
    response.body.on('error', () => undefined);
    reply.send(response.body);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
