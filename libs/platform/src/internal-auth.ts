import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { GatewayContext, isPlan } from '@svc/contracts';
import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { createHash, createPrivateKey, createPublicKey, KeyObject, randomBytes } from 'node:crypto';
import { ApiError } from './errors';
import { asSecret, makeValidator, markPublishedDefault, refuseInProduction } from './config';

/** Header carrying the caller's signed statement of who is calling (the caller app, the callee, the account). */
export const GATEWAY_CONTEXT_HEADER = 'x-svc-context';

/** The apps that call other apps, each with its own Ed25519 key (ADR 014). */
export const INTERNAL_CALLERS = ['gateway', 'chat', 'console', 'mcp-server', 'identity-issuer', 'contacts-api', 'admin'] as const;
export type InternalCaller = (typeof INTERNAL_CALLERS)[number];

const LIFETIME_S = 60;
/** A service's own calls reuse a context for this long (of its 60 s): one signature per callee and account, not per call. */
const REUSE_MS = 30_000;
/** Signed and verified contexts kept at most (the maps start again when full). */
const MAX_KEPT = 10_000;
/** PKCS#8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

type Snake<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}_${Snake<Tail>}` : S;
/** The setting of a caller's private key: `CHAT_INTERNAL_KEY` for the chat. */
export type InternalKeySetting<C extends InternalCaller> = `${Uppercase<Snake<C>>}_INTERNAL_KEY`;

export function internalKeySetting<C extends InternalCaller>(caller: C): InternalKeySetting<C> {
  return `${caller.toUpperCase().replaceAll('-', '_')}_INTERNAL_KEY` as InternalKeySetting<C>;
}

/** The setting that lists every caller's public keys. */
export const PUBLIC_KEYS_SETTING = 'INTERNAL_PUBLIC_KEYS';

function isCaller(name: string): name is InternalCaller {
  return (INTERNAL_CALLERS as readonly string[]).includes(name);
}

/** An Ed25519 private key from its 32-byte seed (base64 or base64url); throws on anything else. */
function privateKeyOf(seed: string): KeyObject {
  const bytes = Buffer.from(seed.trim(), 'base64');
  if (bytes.length !== 32 || !/^[A-Za-z0-9+/_-]+=*$/.test(seed.trim())) throw new Error('must be a 32-byte Ed25519 seed in base64');
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes]), format: 'der', type: 'pkcs8' });
}

/** The raw public key (base64url, 43 characters) of a private key. */
function publicOf(key: KeyObject): string {
  return String(createPublicKey(key).export({ format: 'jwk' }).x);
}

/** The public key (base64url) of a caller's private key setting: what goes into INTERNAL_PUBLIC_KEYS. */
export function internalPublicKey(seed: string): string {
  return publicOf(privateKeyOf(seed));
}

/** A new key pair: `seed` for the caller's `<APP>_INTERNAL_KEY`, `publicKey` for INTERNAL_PUBLIC_KEYS. */
export function generateInternalKey(): { seed: string; publicKey: string } {
  const seed = randomBytes(32).toString('base64url');
  return { seed, publicKey: internalPublicKey(seed) };
}

/** `caller:publicKey` entries, separated by spaces or commas; a caller may have several (a rotation). */
export function parsePublicKeys(list: string): Map<string, { caller: InternalCaller; key: KeyObject }> {
  const keys = new Map<string, { caller: InternalCaller; key: KeyObject }>();
  for (const entry of list.split(/[\s,]+/).filter(Boolean)) {
    const [caller, x, extra] = entry.split(':');
    if (!caller || !x || extra !== undefined || !isCaller(caller)) {
      throw new Error(`must list caller:publicKey entries (callers: ${INTERNAL_CALLERS.join(', ')}); "${entry.slice(0, 20)}" is not one`);
    }
    try {
      keys.set(x, { caller, key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }) });
    } catch {
      throw new Error(`holds a public key of ${caller} that is not an Ed25519 key (base64url, 43 characters)`);
    }
  }
  return keys;
}

/**
 * Development keys: derived from the caller's name, so they are the same on every machine and
 * published here. Production refuses them (`<APP>_INTERNAL_KEY` as a published secret,
 * INTERNAL_PUBLIC_KEYS when it lists one of their public keys).
 */
const DEV_SEEDS = Object.fromEntries(
  INTERNAL_CALLERS.map((caller) => [
    caller,
    createHash('sha256').update(`svc development-only internal key of ${caller}`).digest('base64url'),
  ]),
) as Record<InternalCaller, string>;
const DEV_PUBLIC_KEYS = new Set(INTERNAL_CALLERS.map((caller) => internalPublicKey(DEV_SEEDS[caller])));

const seedValidator = asSecret(
  makeValidator<string>((value) => {
    privateKeyOf(value);
    return value.trim();
  }),
);

/** The setting of a caller's own private key (only the apps that call others have one). */
export function internalKeySpec<C extends InternalCaller>(caller: C) {
  const spec = seedValidator({
    devDefault: DEV_SEEDS[caller],
    desc: `This app's own Ed25519 private key (its 32-byte seed, base64) with which it signs its calls to the other apps' internal listeners (\`iss\`: ${caller}); they verify with its public key in INTERNAL_PUBLIC_KEYS. Generate and rotate: docs/operations.md "Secrets and rotation".`,
  });
  return { [internalKeySetting(caller)]: spec } as Record<InternalKeySetting<C>, typeof spec>;
}

const publicKeysValidator = makeValidator<string>((value) => {
  parsePublicKeys(value);
  return value;
});

/** Every app: the public keys of the apps that may call it (which route accepts which caller is in the code). */
export const internalAuthConfigSpec = {
  [PUBLIC_KEYS_SETTING]: refuseInProduction(
    markPublishedDefault(
      publicKeysValidator({
        devDefault: INTERNAL_CALLERS.map((caller) => `${caller}:${internalPublicKey(DEV_SEEDS[caller])}`).join(' '),
        desc: 'The public keys of the apps that call others (gateway, chat, console, mcp-server, identity-issuer, contacts-api, admin): `caller:key` entries (the key: base64url, 43 characters) separated by spaces or commas; the same list in every app, not a secret. A caller may be listed twice while its key is rotated (docs/operations.md "Secrets and rotation"). Each internal route accepts only the callers it names.',
      }),
    ),
    (value: string) =>
      [...parsePublicKeys(value).keys()].some((x) => DEV_PUBLIC_KEYS.has(x))
        ? `${PUBLIC_KEYS_SETTING} lists a development key published in this repository: list your own keys`
        : undefined,
  ),
} as { INTERNAL_PUBLIC_KEYS: ReturnType<typeof publicKeysValidator> };

export interface InternalAuthOptions {
  /** This app: the `iss` of what it signs, the `aud` of what it accepts. */
  name: string;
  /** Its private key (`<APP>_INTERNAL_KEY`), when it calls other apps. */
  signingKey?: string;
  /** INTERNAL_PUBLIC_KEYS, when it is called. */
  publicKeys?: string;
}

/** A caller refused by a route's list, although its signature is good: 403. */
export class CallerNotAccepted extends Error {
  constructor(readonly caller: string) {
    super(`calls from ${caller} are not accepted here`);
  }
}

interface Verified {
  context: GatewayContext;
  caller: InternalCaller;
  until: number;
}

/**
 * Short-lived EdDSA JWTs between apps: signed with the calling app's own private key (`iss`: the
 * caller, `kid`: its public key), for one callee (`aud`), naming the account. A callee checks the
 * signature against INTERNAL_PUBLIC_KEYS and the caller against the route's list.
 */
export class InternalAuth {
  readonly name: string;
  /** KeyObjects made once: given raw bytes, jose would make one on every call. */
  private readonly key: { private: KeyObject; kid: string } | undefined;
  private readonly publicKeys: Map<string, { caller: InternalCaller; key: KeyObject }>;
  private readonly reusable = new Map<string, { token: string; until: number }>();
  private readonly verified = new Map<string, Verified>();

  constructor({ name, signingKey, publicKeys }: InternalAuthOptions) {
    this.name = name;
    if (signingKey) {
      const key = privateKeyOf(signingKey);
      this.key = { private: key, kid: publicOf(key) };
    }
    this.publicKeys = parsePublicKeys(publicKeys ?? '');
  }

  /** The InternalAuth of `name` from an environment (a test's stack, the admin command line). */
  static fromEnv(name: InternalCaller, env: Record<string, string | undefined>): InternalAuth {
    return new InternalAuth({ name, signingKey: env[internalKeySetting(name)], publicKeys: env[PUBLIC_KEYS_SETTING] });
  }

  /** A context for `audience`, the name of the app called (`contacts-api`, …). */
  sign(audience: string, context: GatewayContext): Promise<string> {
    if (!this.key) throw new Error(`${this.name} has no key to sign internal calls with`);
    return new SignJWT({ acc: context.account, kid: context.keyId, rid: context.requestId })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.key.kid })
      .setIssuer(this.name)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${LIFETIME_S}s`)
      .sign(this.key.private);
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

  /**
   * The context of a token signed for this app by one of `callers`; throws otherwise
   * (CallerNotAccepted when the signature is good but the caller is not in the list). A verified
   * token is trusted until it expires.
   */
  async verify(token: string, callers: readonly InternalCaller[]): Promise<GatewayContext> {
    const cacheKey = token;
    let verified = this.verified.get(cacheKey);
    if (!verified || verified.until <= Date.now()) {
      verified = await this.check(token);
      keep(this.verified, cacheKey, verified);
    }
    if (!callers.includes(verified.caller)) throw new CallerNotAccepted(verified.caller);
    return verified.context;
  }

  private async check(token: string): Promise<Verified> {
    let signer: InternalCaller | undefined;
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const found = header.kid === undefined ? undefined : this.publicKeys.get(header.kid);
        if (!found) throw new Error('signed with a key not in INTERNAL_PUBLIC_KEYS');
        signer = found.caller;
        return found.key;
      },
      { audience: this.name, algorithms: ['EdDSA'] },
    );
    if (!signer || payload.iss !== signer) throw new Error('the issuer is not the owner of the key');
    const account = payload['acc'] as GatewayContext['account'] | undefined;
    if (!account || typeof account.id !== 'string' || typeof account.name !== 'string' || !isPlan(String(account.plan))) {
      throw new Error('malformed context');
    }
    const context = { account, keyId: String(payload['kid']), requestId: String(payload['rid'] ?? '') };
    return { context, caller: signer, until: Number(payload.exp) * 1000 };
  }
}

function keep<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_KEPT) map.clear();
  map.set(key, value);
}

const INTERNAL_CALLERS_KEY = Symbol('internal callers');

/**
 * The apps whose signed calls a route (or every route of a controller) accepts:
 * `@InternalCallers('gateway', 'mcp-server')`. A route without the list accepts no signed call.
 */
export const InternalCallers = (...callers: InternalCaller[]): ClassDecorator & MethodDecorator =>
  SetMetadata(INTERNAL_CALLERS_KEY, callers);

const REFUSED = 'This service is reached only through the API gateway.';

/**
 * The context of a call to this app, signed by one of `callers`, from its header: 401 without a
 * valid one, 403 `forbidden` for a caller not in the list. For routes outside Nest (raw Fastify).
 */
export async function verifiedCaller(
  request: FastifyRequest,
  auth: InternalAuth,
  callers: readonly InternalCaller[],
): Promise<GatewayContext> {
  const token = request.headers[GATEWAY_CONTEXT_HEADER];
  if (typeof token !== 'string') throw new ApiError('unauthorized', REFUSED);
  try {
    return await auth.verify(token, callers);
  } catch (err) {
    if (err instanceof CallerNotAccepted) {
      request.log.warn({ caller: err.caller }, 'refused a call from an app this route does not accept');
      throw new ApiError('forbidden', `This route does not accept calls from ${err.caller}.`);
    }
    request.log.warn({ reason: err instanceof Error ? err.message : 'invalid' }, 'refused a call without a valid signed context');
    throw new ApiError('unauthorized', REFUSED);
  }
}

type RequestWithContext = FastifyRequest & { gatewayContext?: GatewayContext };

/** Guard of routes other apps call: a context signed for this app by one of the route's `@InternalCallers`. */
@Injectable()
export class GatewayContextGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(InternalAuth) private readonly auth: InternalAuth,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithContext>();
    const callers = this.reflector.getAllAndOverride<InternalCaller[] | undefined>(INTERNAL_CALLERS_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    const verified = await verifiedCaller(request, this.auth, callers ?? []);
    // A reusable context (a service's own call) names no request: the call's x-request-id does.
    request.gatewayContext = verified.requestId ? verified : { ...verified, requestId: String(request.id) };
    return true;
  }
}

/** The verified caller of a service route: `handler(@Caller() caller: GatewayContext)`. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): GatewayContext => {
  const context = ctx.switchToHttp().getRequest<RequestWithContext>().gatewayContext;
  if (!context) throw new ApiError('unauthorized', REFUSED);
  return context;
});
