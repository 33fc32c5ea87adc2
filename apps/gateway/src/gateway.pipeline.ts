import { Inject, Injectable } from '@nestjs/common';
import { API_PLAN } from '@svc/contracts';
import { ApiError, BODY_LIMIT_BYTES, InternalAuth, parseJsonBody, unavailableError } from '@svc/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeyAuthenticator, Principal } from './auth/authenticator';
import { GATEWAY_CONFIG, GatewayConfig } from './gateway.config';
import { MCP_PATH, McpOriginCheck } from './mcp/mcp-origin-check';
import { canonicalPath } from './proxy/canonical-path';
import { Upstream } from './proxy/route-table';
import { LimitDecision, WriteLimiter } from './rate-limit/write-limiter';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** The path (canonical, see canonicalPath) and query string the gateway checks and forwards. */
    canonicalUrl: string;
  }
}

export const API_PREFIX = '/api/v1';
const UNDER_PREFIX = `${API_PREFIX}/`;
const PUBLIC_PATHS = new Set([`${API_PREFIX}/openapi.json`]);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BEARER = 'Bearer ';

/** The token of `Authorization: Bearer <token>`, or '' (never a valid key; the key pattern refuses any other malformed token). */
function bearerToken(authorization: string | undefined): string {
  return authorization?.startsWith(BEARER) ? authorization.slice(BEARER.length) : '';
}

/** Every canonical path under the API prefix except the public ones, and the MCP endpoint. */
function needsKey(path: string): boolean {
  return path === MCP_PATH || ((path === API_PREFIX || path.startsWith(UNDER_PREFIX)) && !PUBLIC_PATHS.has(path));
}

/** The request target with its path made canonical, or a 400 for a path that has no single meaning. */
function canonicalUrlOf(url: string): { url: string; path: string } {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const canonical = canonicalPath(path);
  if ('refused' in canonical) {
    throw new ApiError('validation_failed', 'The URL path is not valid.', [{ path: 'path', message: canonical.refused }]);
  }
  return { url: query === -1 ? canonical.path : canonical.path + url.slice(query), path: canonical.path };
}

/**
 * The checks every public call passes, in the contract's order, in an onRequest hook before the
 * body is read: a path with no single meaning is refused (400), then 401, 402, 429 (writes); then
 * 415 / 413 / 400 `invalid_json` while Fastify reads the body; then the route (the gateway's own,
 * or a service's through GatewayProxy).
 */
@Injectable()
export class GatewayPipeline {
  private readonly mcpOrigins: McpOriginCheck;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly limiter: WriteLimiter,
    private readonly internalAuth: InternalAuth,
  ) {
    this.mcpOrigins = new McpOriginCheck(config);
  }

  install(fastify: FastifyInstance): void {
    // Declared up front, so that setting it keeps every request object of one shape.
    fastify.decorateRequest('principal', undefined);
    fastify.decorateRequest('canonicalUrl', '');
    fastify.addHook('onRequest', (request, reply, done) => {
      let principal: Principal | undefined;
      let apiKey: string;
      try {
        // The router reads escaped unreserved characters as plain ones too: both see one path.
        const { url, path } = canonicalUrlOf(request.url);
        request.canonicalUrl = url;
        if (path === MCP_PATH) this.mcpOrigins.check(request.headers);
        if (!needsKey(path)) return done();
        apiKey = bearerToken(request.headers.authorization);
        // A key in the cache is admitted without a promise: a read costs no microtask here.
        principal = this.authenticator.cached(apiKey);
      } catch (err) {
        return done(err as Error);
      }
      if (!principal) {
        this.authenticate(request, reply, apiKey).then(() => done(), done);
        return;
      }
      let limiting: Promise<void> | undefined;
      try {
        limiting = this.admit(request, reply, principal);
      } catch (err) {
        return done(err as Error);
      }
      if (limiting) limiting.then(() => done(), done);
      else done();
    });

    // Bodies stay bytes: checked by the one JSON reader (`parseJsonBody`) here, relayed untouched to the service.
    fastify.removeContentTypeParser('application/json');
    fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
      const bytes = body as Buffer;
      try {
        // Refused here already (not JSON, nested too deep, a NUL), before the body travels to a service.
        parseJsonBody(bytes);
      } catch (err) {
        return done(err as Error, undefined);
      }
      done(null, bytes.length === 0 ? undefined : bytes);
    });
  }

  /**
   * A key not in the cache: looked up unless its shape or checksum rules it out. Nothing is counted
   * per client address, so other callers' bad keys never hold up a valid one.
   */
  private async authenticate(request: FastifyRequest, reply: FastifyReply, apiKey: string): Promise<void> {
    return this.admit(request, reply, await this.authenticator.lookup(apiKey));
  }

  /** 401, 402, then for a write the limit (the promise of its 429 or go-ahead). */
  private admit(request: FastifyRequest, reply: FastifyReply, principal: Principal | null): Promise<void> | undefined {
    if (!principal) {
      throw new ApiError('unauthorized', 'Send a valid API key: Authorization: Bearer svc_cust_…', undefined, {
        'www-authenticate': 'Bearer',
      });
    }
    if (principal.account.plan !== API_PLAN) {
      throw new ApiError('plan_required', `The API needs the ${API_PLAN} plan; this account is on ${principal.account.plan}.`);
    }
    request.principal = principal;
    if (!WRITES.has(request.method) || !request.canonicalUrl.startsWith(UNDER_PREFIX)) return undefined;
    return this.limit(request, reply, principal);
  }

  private async limit(request: FastifyRequest, reply: FastifyReply, principal: Principal): Promise<void> {
    const decision = await this.countWrite(principal.key.id, request);
    reply.headers({
      'ratelimit-limit': String(decision.limit),
      'ratelimit-remaining': String(decision.remaining),
      'ratelimit-reset': String(decision.resetSeconds),
    });
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `Too many writes; retry in ${decision.retryAfterSeconds} s.`, undefined, {
        'retry-after': String(decision.retryAfterSeconds),
      });
    }
  }

  /**
   * Counts one write of a key against its limits (REST writes here, MCP write tools through
   * /internal/writes). Fails closed: a write is
   * never let past a limit that cannot be counted (503).
   */
  countWrite(keyId: string, request: FastifyRequest): Promise<LimitDecision> {
    return this.limiter.consume(keyId).catch((err: unknown) => {
      request.log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'write refused: Redis unavailable');
      throw unavailableError();
    });
  }

  /** The signed context for the service called (its audience): no other service accepts it. */
  contextFor(upstream: Upstream, request: FastifyRequest): Promise<string> {
    const principal = request.principal;
    // Every routed path needs a key (see needsKey); a call without one is never forwarded.
    if (!principal)
      throw new ApiError('unauthorized', 'Send a valid API key: Authorization: Bearer svc_cust_…', undefined, {
        'www-authenticate': 'Bearer',
      });
    return this.internalAuth.sign(upstream, { account: principal.account, keyId: principal.key.id, requestId: request.id });
  }
}
