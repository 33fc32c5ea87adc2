import { Inject, Injectable } from '@nestjs/common';
import { API_PLAN } from '@svc/contracts';
import { ApiError, APP_CONFIG, BODY_LIMIT_BYTES, InternalAuth } from '@svc/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeyAuthenticator, Principal } from './auth/authenticator';
import { GatewayConfig } from './gateway.config';
import { ROUTES, Upstream } from './proxy/route-table';
import { UpstreamProxy } from './proxy/upstream-proxy';
import { WriteLimiter } from './rate-limit/write-limiter';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
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

/** Every path under the API prefix except the public ones (the query string aside). */
function needsKey(url: string): boolean {
  if (!url.startsWith(API_PREFIX)) return false;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return (path === API_PREFIX || path.startsWith(UNDER_PREFIX)) && !PUBLIC_PATHS.has(path);
}

/**
 * The checks every public call passes, in the contract's order: 401, 402, 429 (writes) in an
 * onRequest hook, before the body is read; then 415 / 413 / 400 `invalid_json` while Fastify reads
 * the body; then the route (the gateway's own, or a proxied service).
 */
@Injectable()
export class GatewayPipeline {
  private readonly exempt: Set<string>;

  constructor(
    @Inject(APP_CONFIG) config: GatewayConfig,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly limiter: WriteLimiter,
    private readonly proxy: UpstreamProxy,
    private readonly internalAuth: InternalAuth,
  ) {
    this.exempt = new Set(config.WRITE_LIMIT_EXEMPT_ACCOUNTS.split(',').map((id) => id.trim()).filter(Boolean));
  }

  install(fastify: FastifyInstance): void {
    // Declared up front, so that setting it keeps every request object of one shape.
    fastify.decorateRequest('principal', undefined);
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!needsKey(request.url)) return done();
      const lookup = this.authenticator.authenticate(bearerToken(request.headers.authorization));
      // A key in the cache is admitted without a promise: a read costs no microtask here.
      if (lookup instanceof Promise) {
        lookup.then((principal) => this.admit(request, reply, principal)).then(() => done(), done);
        return;
      }
      let limiting: Promise<void> | undefined;
      try {
        limiting = this.admit(request, reply, lookup);
      } catch (err) {
        return done(err as Error);
      }
      if (limiting) limiting.then(() => done(), done);
      else done();
    });

    // Bodies stay bytes: checked to be JSON here, relayed untouched to the service.
    fastify.removeContentTypeParser('application/json');
    fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
      const bytes = body as Buffer;
      if (bytes.length === 0) return done(null, undefined);
      try {
        JSON.parse(bytes.toString('utf8'));
        done(null, bytes);
      } catch {
        done(new ApiError('invalid_json', 'The request body is not valid JSON.'), undefined);
      }
    });

    for (const route of ROUTES) {
      fastify.route({
        method: route.method,
        url: API_PREFIX + route.path,
        handler: async (request, reply) => this.proxy.forward(route.upstream, request, reply, await this.contextFor(route.upstream, request)),
      });
    }
  }

  /** 401, 402, then for a write the limit (the promise of its 429 or go-ahead). */
  private admit(request: FastifyRequest, reply: FastifyReply, principal: Principal | null): Promise<void> | undefined {
    if (!principal) {
      throw new ApiError('unauthorized', 'Send a valid API key: Authorization: Bearer svc_cust_…', undefined, { 'www-authenticate': 'Bearer' });
    }
    if (principal.account.plan !== API_PLAN) {
      throw new ApiError('plan_required', `The API needs the ${API_PLAN} plan; this account is on ${principal.account.plan}.`);
    }
    request.principal = principal;
    if (!WRITES.has(request.method) || this.exempt.has(principal.account.id)) return undefined;
    return this.limit(request, reply, principal);
  }

  private async limit(request: FastifyRequest, reply: FastifyReply, principal: Principal): Promise<void> {
    const decision = await this.limiter.consume(principal.key.id, request.id).catch((err: unknown) => {
      request.log.error({ err }, 'write limiter unavailable');
      throw new ApiError('unavailable', 'The service is temporarily unavailable; retry shortly.', undefined, { 'retry-after': '1' });
    });
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

  /** The signed context for the service called (its audience): no other service accepts it. */
  private contextFor(upstream: Upstream, request: FastifyRequest): Promise<string> {
    const principal = request.principal as Principal;
    return this.internalAuth.sign(upstream, { account: principal.account, keyId: principal.key.id, requestId: request.id });
  }
}
