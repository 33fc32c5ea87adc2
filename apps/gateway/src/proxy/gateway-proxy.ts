import replyFrom, { FastifyReplyFromHooks } from '@fastify/reply-from';
import { Inject, Injectable } from '@nestjs/common';
import { servicePool } from '@svc/internal-clients';
import { ApiError, GATEWAY_CONTEXT_HEADER, sendError, unavailableError } from '@svc/platform';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Dispatcher, Pool } from 'undici';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { API_PREFIX, GatewayPipeline } from '../gateway.pipeline';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf, IdempotencyStore, REPLAYED_HEADER, Answer } from '../idempotency/idempotency';
import { MCP_PATH } from '../mcp/mcp-origin-check';
import { canonicalPath } from './canonical-path';
import { ROUTES, Upstream, UPSTREAMS } from './route-table';

/** The apps the gateway passes browser traffic to unchanged, without the API's key checks. */
type PassThrough = 'chat' | 'console';

/** Response headers that describe one hop and must not be relayed. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'date',
  'x-request-id',
]);

/** The response headers of a service relayed to the caller. */
export function relayedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const relayed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) relayed[name] = value;
  }
  return relayed;
}

/** Request headers a service needs; everything else (Authorization above all) stays at the gateway. */
const API_REQUEST_HEADERS = ['content-type', 'accept', 'accept-language', 'user-agent', 'mcp-protocol-version'] as const;
/** What the chat needs from a visitor's browser: its token, the page's origin, the stream position. */
const CHAT_REQUEST_HEADERS = [
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
/** What the console needs from a team member's browser: its session cookie, CSRF token, the body's type and the page's origin. */
const CONSOLE_REQUEST_HEADERS = [
  'cookie',
  'content-type',
  'content-length',
  'accept',
  'accept-language',
  'user-agent',
  'origin',
  'referer',
  'x-csrf-token',
  'last-event-id',
] as const;
const PASS_THROUGH_HEADERS: Record<PassThrough, readonly string[]> = { chat: CHAT_REQUEST_HEADERS, console: CONSOLE_REQUEST_HEADERS };
const UNAVAILABLE_MESSAGES: Partial<Record<Upstream | PassThrough, string>> = {
  console: 'The console is temporarily unavailable; retry shortly.',
};

/** The chat's public paths: its widget, demo page, visitor API (`/chat/v1/*`), email confirmation links and the WhatsApp webhook. */
export const CHAT_PREFIX = '/chat/';
/** Paths the gateway keeps (the API, the chat, MCP, its own internal routes and probes); every other path is the console's. */
const NOT_CONSOLE = /^\/(api|chat|mcp|internal|healthz|readyz|metrics)(\/|\?|$)/;
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** No retry: a service's 503 or a dropped connection is the caller's to retry (reply-from retries a GET's 503 by default). */
const NO_RETRY = (): null => null;

/**
 * Whether a request's URL is the console's, judged on the canonical path the gateway's routes see
 * (`/%61pi/v1/…` is the API's). A path with no single meaning stays with the gateway, which refuses it.
 */
export function isConsolePath(url: string): boolean {
  const query = url.indexOf('?');
  const canonical = canonicalPath(query === -1 ? url : url.slice(0, query));
  return !('refused' in canonical) && !NOT_CONSOLE.test(canonical.path);
}

/** Why a service could not be reached, for the log: the connection error's code where there is one. */
const unreachableReason = (err: unknown): string => (err as { code?: string }).code ?? String(err);

/** The headers named, as the client sent them (single values only). */
function pick(request: FastifyRequest, names: readonly string[], into: Record<string, string>): Record<string, string> {
  for (const name of names) {
    const value = request.headers[name];
    if (typeof value === 'string') into[name] = value;
  }
  return into;
}

/**
 * The gateway's one proxy (@fastify/reply-from over one undici pool per app): the API's routes and
 * `/mcp` to the service that owns them, after the pipeline's checks, with a context signed for that
 * service; `/chat/*` and every path of the console to those apps unchanged, without the API's key
 * checks (visitors and team members carry their own credentials). What every call keeps:
 * - Request headers: only those the app needs (lists above), `x-request-id` (the gateway's), and for
 *   the chat and the console the client's address as the gateway sees it (TRUST_PROXY) in
 *   X-Forwarded-For. Response headers: all but the hop-by-hop ones, `date` and `x-request-id`.
 * - Bodies: the API's and the chat's as the bytes the pipeline checked, the console's streamed as
 *   they come; answers streamed back (the chat's and the inbox's event streams included).
 * - Timeouts: UPSTREAM_TIMEOUT_MS for the answer's headers; for the API also between body chunks,
 *   none for the chat and console (long-lived event streams, no cap on their connections).
 * - An app that cannot be reached, or does not answer in time: 503 `unavailable` in the contract's
 *   error shape, logged as `upstream unavailable` with the app and the reason. No retries.
 * A POST with an Idempotency-Key is read whole (`capture`) and answered from IdempotencyStore.
 * Registered as one Fastify plugin (`plugin`), the only raw routes of the product: see
 * docs/architecture.md "HTTP routes".
 */
@Injectable()
export class GatewayProxy {
  private readonly pools = new Map<Upstream | PassThrough, Pool>();
  private readonly origins = new Map<Upstream | PassThrough, string>();
  /** reply-from's dispatcher: each call to the pool of its app's origin. */
  private readonly dispatcher: Pick<Dispatcher, 'request'>;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly pipeline: GatewayPipeline,
    private readonly idempotency: IdempotencyStore,
  ) {
    const timeoutMs = config.UPSTREAM_TIMEOUT_MS;
    for (const [upstream, setting] of Object.entries(UPSTREAMS) as Array<[Upstream, keyof GatewayConfig]>) {
      this.add(upstream, String(config[setting]), servicePool(String(config[setting]), { connections: 128, timeoutMs }));
    }
    // Each open event stream holds a connection for as long as the visitor or member stays.
    this.add('chat', config.CHAT_URL, servicePool(config.CHAT_URL, { connections: null, timeoutMs, bodyTimeoutMs: 0 }));
    this.add('console', config.CONSOLE_URL, servicePool(config.CONSOLE_URL, { connections: null, timeoutMs, bodyTimeoutMs: 0 }));
    const byOrigin = new Map([...this.origins].map(([app, origin]) => [origin, this.pools.get(app) as Pool]));
    this.dispatcher = {
      request: ((options: Dispatcher.RequestOptions, callback: (err: Error | null, data: Dispatcher.ResponseData) => void) =>
        (byOrigin.get(String(options.origin)) as Pool).request(options, callback)) as Dispatcher['request'],
    };
  }

  private add(app: Upstream | PassThrough, url: string, pool: Pool): void {
    this.pools.set(app, pool);
    this.origins.set(app, new URL(url).origin);
  }

  /**
   * The proxy's routes and the console's hook, for `fastify.register`. Not encapsulated
   * (`skip-override`, what fastify-plugin sets): the hook sees every request, 404s included.
   */
  readonly plugin: FastifyPluginAsync = Object.assign(
    async (fastify: FastifyInstance) => {
      await fastify.register(replyFrom, { undici: this.dispatcher as Dispatcher, disableRequestLogging: true });
      this.routes(fastify);
    },
    { [Symbol.for('skip-override')]: true },
  );

  private routes(fastify: FastifyInstance): void {
    for (const route of ROUTES) {
      fastify.route({
        method: route.method,
        url: API_PREFIX + route.path,
        handler: async (request, reply) => {
          const path = request.canonicalUrl.slice(API_PREFIX.length);
          const key = route.method === 'POST' ? idempotencyKeyOf(request.headers[IDEMPOTENCY_KEY_HEADER]) : undefined;
          if (key === undefined)
            return this.forward(route.upstream, request, reply, path, await this.pipeline.contextFor(route.upstream, request));
          return this.idempotent(route.upstream, request, reply, path, key);
        },
      });
    }
    // The MCP server: the same key and plan checks; its write tools count their writes themselves
    // (POST /mcp is no write: most tool calls read), through /internal/writes. GET and DELETE are
    // answered by the server (405: stateless, no stream to resume, no session to end).
    fastify.route({
      method: ['GET', 'POST', 'DELETE'],
      url: MCP_PATH,
      handler: async (request, reply) =>
        this.forward('mcp-server', request, reply, request.canonicalUrl, await this.pipeline.contextFor('mcp-server', request)),
    });
    // `/chat/*` to the chat app, unchanged (visitors carry their own token, which the chat checks).
    fastify.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${CHAT_PREFIX}*`,
      handler: (request, reply) => this.passOn('chat', request, reply),
    });
    // The team's web console at `{app_url}/` (contract "One public origin"): every path the gateway
    // does not keep, from an onRequest hook, so that no gateway route (and no 404/405 of the API) is
    // shadowed by a catch-all. A callback hook, not an async one: the API's calls pass it on every
    // request, without a promise or a microtask. Answered here, and `done` is never called: no
    // gateway route runs. The console throttles failed sign-ins by the X-Forwarded-For address.
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!isConsolePath(request.url)) return done();
      // Bodies stream through as they come (reply-from sends a stream body as it is).
      if (!BODYLESS.has(request.method)) request.body = request.raw;
      try {
        this.passOn('console', request, reply);
      } catch (err) {
        sendError(request, reply, err);
      }
    });
  }

  /** An API call to its service; `path`: the service's path and query string (the canonical request target below `/api/v1`). */
  private forward(upstream: Upstream, request: FastifyRequest, reply: FastifyReply, path: string, context: string): FastifyReply {
    return this.from(upstream, request, reply, path, {
      rewriteRequestHeaders: () => this.apiHeaders(request, context),
    });
  }

  /** A browser's call to the chat or the console, unchanged. */
  private passOn(app: PassThrough, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    return this.from(app, request, reply, request.url, {
      rewriteRequestHeaders: () => pick(request, PASS_THROUGH_HEADERS[app], { 'x-request-id': request.id, 'x-forwarded-for': request.ip }),
    });
  }

  private from(
    app: Upstream | PassThrough,
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    hooks: Pick<FastifyReplyFromHooks, 'rewriteRequestHeaders'>,
  ): FastifyReply {
    // The checked bytes of a JSON body, sent as they are (reply-from would encode a parsed body again).
    const bytes = request.body instanceof Buffer && !BODYLESS.has(request.method) ? request.body : undefined;
    try {
      return reply.from(this.origins.get(app) + path, {
        ...hooks,
        ...(bytes ? { body: bytes, contentType: request.headers['content-type'] ?? 'application/json' } : {}),
        rewriteHeaders: (headers) => relayedHeaders(headers as IncomingHttpHeaders),
        retryDelay: NO_RETRY,
        onError: (_reply, { error }) => {
          sendError(request, reply, this.unavailable(app, request, (error as { cause?: unknown }).cause ?? error));
        },
      });
    } catch (err) {
      // reply-from refuses a path it cannot decode or one with a `..` segment in an escape.
      throw new ApiError('validation_failed', 'The URL path is not valid.', [
        { path: 'path', message: err instanceof Error ? err.message : String(err) },
      ]);
    }
  }

  private apiHeaders(request: FastifyRequest, context: string): Record<string, string> {
    const headers = pick(request, API_REQUEST_HEADERS, { [GATEWAY_CONTEXT_HEADER]: context, 'x-request-id': request.id });
    // An empty JSON body is no body: the service must not be told one is coming.
    if (!(request.body instanceof Buffer)) delete headers['content-type'];
    return headers;
  }

  private unavailable(app: Upstream | PassThrough, request: FastifyRequest, err: unknown): ApiError {
    request.log.warn({ upstream: app, reason: unreachableReason(err) }, 'upstream unavailable');
    return unavailableError(UNAVAILABLE_MESSAGES[app]);
  }

  /** A POST with an Idempotency-Key: the first answer for the key, run once, replayed after (see IdempotencyStore). */
  private async idempotent(
    upstream: Upstream,
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    key: string,
  ): Promise<FastifyReply> {
    const scope = (request.principal as NonNullable<FastifyRequest['principal']>).key.id;
    const body = request.body instanceof Buffer ? request.body : undefined;
    const { answer, replayed } = await this.idempotency.answer(
      { scope, key, method: request.method, url: request.canonicalUrl, body },
      async () => this.capture(upstream, request, path, await this.pipeline.contextFor(upstream, request)),
    );
    reply.code(answer.status).headers(answer.headers);
    if (replayed) reply.header(REPLAYED_HEADER, 'true');
    return reply.send(answer.body);
  }

  /**
   * Like `forward`, but the whole answer is read and returned, to be stored for the key: on the
   * pool itself, since it must be stored even when the client has gone (reply-from stops then).
   */
  private async capture(upstream: Upstream, request: FastifyRequest, path: string, context: string): Promise<Answer> {
    try {
      const response = await (this.pools.get(upstream) as Pool).request({
        method: request.method as 'POST',
        path,
        headers: this.apiHeaders(request, context),
        body: request.body instanceof Buffer ? request.body : undefined,
      });
      return {
        status: response.statusCode,
        headers: relayedHeaders(response.headers),
        body: Buffer.from(await response.body.arrayBuffer()),
      };
    } catch (err) {
      throw this.unavailable(upstream, request, err);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }
}
