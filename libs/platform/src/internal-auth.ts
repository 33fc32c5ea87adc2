import { CanActivate, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { GatewayContext, isPlan } from '@svc/contracts';
import type { FastifyRequest } from 'fastify';
import { errors, jwtVerify, SignJWT } from 'jose';
import { createSecretKey, KeyObject } from 'node:crypto';
import { ApiError } from './errors';
import { optional, secret } from './config';

/** Header carrying the gateway's signed statement of who is calling. */
export const GATEWAY_CONTEXT_HEADER = 'x-svc-context';

const ISSUER = 'svc-gateway';
const LIFETIME_S = 60;
/** A service's own calls reuse a context for this long (of its 60 s): one signature per callee and account, not per call. */
const REUSE_MS = 30_000;
/** Signed and verified contexts kept at most (the maps start again when full). */
const MAX_KEPT = 10_000;

/** Configuration shared by the gateway (signs) and every service behind it (verifies). */
export const internalAuthConfigSpec = {
  INTERNAL_AUTH_SECRET: secret(32)({
    devDefault: 'development-only-internal-secret-0123456789',
    desc: 'Shared secret (32+ chars) with which the gateway signs the caller context it passes to a service (audience: that service). The same value in every app; rotation: docs/operations.md "Secrets and rotation".',
  }),
  INTERNAL_AUTH_SECRET_PREVIOUS: optional(
    secret(32, { orEmpty: true }),
    'A second value accepted (never used to sign) while INTERNAL_AUTH_SECRET is rotated: the next one in the first step, then the previous one (docs/operations.md "Secrets and rotation"). Empty otherwise.',
  ),
};

/** An app's internal-auth settings: the secret that signs, and optionally a second one that only verifies (a rotation). */
export interface InternalAuthSecrets {
  INTERNAL_AUTH_SECRET: string;
  INTERNAL_AUTH_SECRET_PREVIOUS?: string;
}

/**
 * The gateway's signed context for one service (`aud`): a short-lived HS256 JWT, verified with
 * INTERNAL_AUTH_SECRET or, during a rotation, INTERNAL_AUTH_SECRET_PREVIOUS.
 */
export class InternalAuth {
  /** KeyObjects made once: given raw bytes, jose would make one on every call. */
  private readonly key: KeyObject;
  private readonly previous: KeyObject | undefined;
  private readonly reusable = new Map<string, { token: string; until: number }>();
  private readonly verified = new Map<string, { context: GatewayContext; until: number }>();

  constructor(secrets: InternalAuthSecrets | string) {
    const { INTERNAL_AUTH_SECRET: current, INTERNAL_AUTH_SECRET_PREVIOUS: previous } =
      typeof secrets === 'string' ? { INTERNAL_AUTH_SECRET: secrets } : secrets;
    this.key = createSecretKey(Buffer.from(current, 'utf8'));
    this.previous = previous ? createSecretKey(Buffer.from(previous, 'utf8')) : undefined;
  }

  /** A context for `audience`, the name of the service called (`contacts-api`, …). */
  sign(audience: string, context: GatewayContext): Promise<string> {
    return new SignJWT({ acc: context.account, kid: context.keyId, rid: context.requestId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${LIFETIME_S}s`)
      .sign(this.key);
  }

  /**
   * A context for a service's own call on an account's behalf, reused for 30 s: without a request
   * id (the callee takes the call's `x-request-id`).
   */
  async signReusable(audience: string, context: GatewayContext): Promise<string> {
    const key = JSON.stringify([audience, context.account, context.keyId]);
    const now = Date.now();
    const kept = this.reusable.get(key);
    if (kept && kept.until > now) return kept.token;
    const token = await this.sign(audience, { ...context, requestId: '' });
    keep(this.reusable, key, { token, until: now + REUSE_MS });
    return token;
  }

  /** The context of a token signed for `audience` (this service); throws otherwise. A verified token is trusted until it expires. */
  async verify(token: string, audience: string): Promise<GatewayContext> {
    const key = `${audience} ${token}`;
    const kept = this.verified.get(key);
    if (kept && kept.until > Date.now()) return kept.context;
    const options = { issuer: ISSUER, audience, algorithms: ['HS256'] };
    const { payload } = await jwtVerify(token, this.key, options).catch((err: unknown) => {
      // Only a bad signature may be the other secret's; an expired or misaddressed token is refused as it is.
      if (this.previous && err instanceof errors.JWSSignatureVerificationFailed) return jwtVerify(token, this.previous, options);
      throw err;
    });
    const account = payload['acc'] as GatewayContext['account'] | undefined;
    if (!account || typeof account.id !== 'string' || typeof account.name !== 'string' || !isPlan(String(account.plan))) {
      throw new Error('malformed context');
    }
    const context = { account, keyId: String(payload['kid']), requestId: String(payload['rid'] ?? '') };
    keep(this.verified, key, { context, until: Number(payload.exp) * 1000 });
    return context;
  }
}

function keep<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_KEPT) map.clear();
  map.set(key, value);
}

type RequestWithContext = FastifyRequest & { gatewayContext?: GatewayContext };

/** Guard for every service behind the gateway: no valid context signed for this service (`audience`), no entry. */
export class GatewayContextGuard implements CanActivate {
  constructor(
    private readonly auth: InternalAuth,
    private readonly audience: string,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithContext>();
    const token = request.headers[GATEWAY_CONTEXT_HEADER];
    if (typeof token !== 'string') throw new ApiError('unauthorized', 'This service is reached only through the API gateway.');
    try {
      const verified = await this.auth.verify(token, this.audience);
      // A reusable context (a service's own call) names no request: the call's x-request-id does.
      request.gatewayContext = verified.requestId ? verified : { ...verified, requestId: String(request.id) };
      return true;
    } catch (err) {
      request.log.warn({ reason: err instanceof Error ? err.message : 'invalid' }, 'refused a call without a valid gateway context');
      throw new ApiError('unauthorized', 'This service is reached only through the API gateway.');
    }
  }
}

/** The verified caller of a service route: `handler(@Caller() caller: GatewayContext)`. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): GatewayContext => {
  const context = ctx.switchToHttp().getRequest<RequestWithContext>().gatewayContext;
  if (!context) throw new ApiError('unauthorized', 'This service is reached only through the API gateway.');
  return context;
});
