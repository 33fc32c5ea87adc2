import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, GatewayContext, INTERNAL_ROUTES, isErrorCode, isPlan, Plan, RouteMethod } from '@svc/contracts';
import { InternalHttpClient, InternalResponse } from '@svc/internal-clients';
import { ApiError, InjectLogger, InternalAuth } from '@svc/platform';
import { LRUCache } from 'lru-cache';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { ConsoleConfig } from '../console.config';
import { MemberSession } from '../members/members.repository';
import { CONSOLE_CONFIG } from '../console.config';

/** The services the console calls; each name is the audience its signed context is for. */
export const UPSTREAMS = ['gateway', 'chat', 'contacts-api', 'knowledge-api', 'webhook-dispatcher'] as const;
export type Upstream = (typeof UPSTREAMS)[number];

/** Where the services are and how long the console waits for them. */
export type UpstreamsConfig = Pick<
  ConsoleConfig,
  'GATEWAY_URL' | 'CHAT_URL' | 'CONTACTS_API_URL' | 'KNOWLEDGE_API_URL' | 'WEBHOOK_DISPATCHER_URL' | 'INTERNAL_TIMEOUT_MS'
>;

export interface ConsoleAccount {
  id: string;
  name: string;
  plan: Plan;
  widget: string;
}

/** How long the console trusts what it read of an account (a plan change shows within this). */
const ACCOUNT_TTL_MS = 5_000;

/**
 * Internal HTTP to the services, as the gateway calls them: a context signed for the service called
 * (audience = its name) naming the member's account, so every service scopes what it does to that
 * account exactly as for an API key. The account's name and plan come from the gateway (owner of
 * accounts), cached for 5 s.
 */
@Injectable()
export class Upstreams {
  private readonly clients: Record<Upstream, InternalHttpClient>;
  private readonly accounts = new LRUCache<string, ConsoleAccount>({ max: 10_000, ttl: ACCOUNT_TTL_MS });

  constructor(
    @Inject(CONSOLE_CONFIG) config: UpstreamsConfig,
    readonly auth: InternalAuth,
    @InjectLogger('upstreams') logger: Logger,
  ) {
    const urls: Record<Upstream, string> = {
      gateway: config.GATEWAY_URL,
      chat: config.CHAT_URL,
      'contacts-api': config.CONTACTS_API_URL,
      'knowledge-api': config.KNOWLEDGE_API_URL,
      'webhook-dispatcher': config.WEBHOOK_DISPATCHER_URL,
    };
    this.clients = Object.fromEntries(
      UPSTREAMS.map((upstream) => [
        upstream,
        new InternalHttpClient({ url: urls[upstream], auth, timeoutMs: config.INTERNAL_TIMEOUT_MS, logger, upstream }),
      ]),
    ) as Record<Upstream, InternalHttpClient>;
  }

  /** The member's account (name, plan, widget id). */
  async account(accountId: string, requestId: string): Promise<ConsoleAccount> {
    const cached = this.accounts.get(accountId);
    if (cached) return cached;
    const context: GatewayContext = { account: { id: accountId, name: '', plan: 'starter' }, keyId: 'console', requestId };
    const { method, path } = INTERNAL_ROUTES.gateway.account;
    const response = await this.clients.gateway.call(method, path, context);
    const account = (response.body as { account?: Partial<ConsoleAccount> } | undefined)?.account;
    if (
      response.status !== 200 ||
      typeof account?.id !== 'string' ||
      typeof account.name !== 'string' ||
      !isPlan(String(account.plan)) ||
      typeof account.widget !== 'string'
    ) {
      throw this.clients.gateway.unavailable(context, `account lookup: status ${response.status}`);
    }
    const found = account as ConsoleAccount;
    this.accounts.set(accountId, found);
    return found;
  }

  /** The context a member's call carries: their account, `console:<member id>` as the caller. */
  async context(member: MemberSession, requestId: string): Promise<GatewayContext> {
    const { id, name, plan } = await this.account(member.account_id, requestId);
    return { account: { id, name, plan }, keyId: `console:${member.member_id}`, requestId };
  }

  call(upstream: Upstream, method: RouteMethod, path: string, context: GatewayContext, json?: unknown): Promise<InternalResponse> {
    return this.clients[upstream].call(method, path, context, json);
  }

  /** A call whose answer must be 2xx: its body; a 4xx is passed on as it came. */
  async expect<T>(upstream: Upstream, method: RouteMethod, path: string, context: GatewayContext, json?: unknown): Promise<T> {
    const response = await this.call(upstream, method, path, context, json);
    if (response.status >= 400) throw passOn(response);
    return response.body as T;
  }

  /** A long-lived event stream of a service (the inbox's live signal). */
  openStream(
    upstream: Upstream,
    path: string,
    context: GatewayContext,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Readable> {
    return this.clients[upstream].openStream(path, context, headers, signal);
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.clients).map((client) => client.close()));
  }
}

/** A service's 4xx answer, re-raised with its code and message for the console's page. */
export function passOn(response: InternalResponse): ApiError {
  const error = (
    response.body as { error?: { code?: string; message?: string; details?: { path: string; message: string }[] } } | undefined
  )?.error;
  const fallback: ErrorCode = response.status === 404 ? 'not_found' : response.status === 409 ? 'conflict' : 'validation_failed';
  const code = isErrorCode(error?.code) ? error.code : fallback;
  return new ApiError(code, error?.message ?? `The service answered ${response.status}.`, error?.details);
}
