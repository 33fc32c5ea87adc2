import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { GatewayContext, isPlan } from '@svc/contracts';
import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { createSecretKey, KeyObject } from 'node:crypto';
import { ApiError } from './errors';
import { secret } from './config';

/** Header carrying the gateway's signed statement of who is calling. */
export const GATEWAY_CONTEXT_HEADER = 'x-svc-context';

const ISSUER = 'svc-gateway';
const AUDIENCE = 'svc-internal';
const LIFETIME_S = 60;

/** Configuration shared by the gateway (signs) and every service behind it (verifies). */
export const internalAuthConfigSpec = {
  INTERNAL_AUTH_SECRET: secret(32)({
    devDefault: 'development-only-internal-secret-0123456789',
    desc: 'Shared secret (32+ chars) with which the gateway signs the caller context it passes to services. Required in production; the same value in every app.',
  }),
};

/**
 * The gateway's statement to a service: "this call came through me, for this account". A short-lived
 * HS256 JWT (jose), so a service refuses anything that did not pass the gateway's checks.
 */
export class InternalAuth {
  /** A KeyObject made once: given raw bytes, jose would make one on every call. */
  private readonly key: KeyObject;

  constructor(secretValue: string) {
    this.key = createSecretKey(Buffer.from(secretValue, 'utf8'));
  }

  sign(context: GatewayContext): Promise<string> {
    return new SignJWT({ acc: context.account, kid: context.keyId, rid: context.requestId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${LIFETIME_S}s`)
      .sign(this.key);
  }

  async verify(token: string): Promise<GatewayContext> {
    const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    const account = payload['acc'] as GatewayContext['account'] | undefined;
    if (!account || typeof account.id !== 'string' || typeof account.name !== 'string' || !isPlan(String(account.plan))) {
      throw new Error('malformed context');
    }
    return { account, keyId: String(payload['kid']), requestId: String(payload['rid']) };
  }
}

type RequestWithContext = FastifyRequest & { gatewayContext?: GatewayContext };

/** Guard for every service behind the gateway: no valid signed context, no entry. */
@Injectable()
export class GatewayContextGuard implements CanActivate {
  constructor(@Inject(InternalAuth) private readonly auth: InternalAuth) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithContext>();
    const token = request.headers[GATEWAY_CONTEXT_HEADER];
    if (typeof token !== 'string') throw new ApiError('unauthorized', 'This service is reached only through the API gateway.');
    try {
      request.gatewayContext = await this.auth.verify(token);
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
