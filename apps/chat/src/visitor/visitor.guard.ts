import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@svc/platform';
import type { FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { isVisitorToken, tokenLifeLeftMs, visitorTokenHash, visitorTokenMaxAgeMs } from '../conversations/visitor-token';
import { OriginPolicy } from './origin-policy';

type VisitorRequest = FastifyRequest & { visitor?: ConversationRow; visitorTokenLifeMs?: number };

const BEARER = 'Bearer ';

const unauthorized = () =>
  new ApiError('unauthorized', 'Open a chat session first: Authorization: Bearer vis_…', undefined, { 'www-authenticate': 'Bearer' });

/**
 * `Authorization: Bearer vis_…`: the visitor's conversation (read fresh), on a page the account
 * allows. A token replaced by a newer one (rotated) or older than VISITOR_TOKEN_MAX_AGE is 401.
 */
@Injectable()
export class VisitorGuard implements CanActivate {
  private readonly maxAgeMs: number;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly origins: OriginPolicy,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'VISITOR_TOKEN_MAX_AGE'>,
  ) {
    this.maxAgeMs = visitorTokenMaxAgeMs(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<VisitorRequest>();
    const authorization = request.headers.authorization;
    const token = authorization?.startsWith(BEARER) ? authorization.slice(BEARER.length) : '';
    const row = isVisitorToken(token) ? await this.conversations.byTokenHash(visitorTokenHash(token)) : undefined;
    const lifeLeftMs = row ? tokenLifeLeftMs(row, this.maxAgeMs) : 0;
    if (!row || lifeLeftMs <= 0) throw unauthorized();
    await this.origins.check(row.account_id, originOf(request));
    request.visitor = row;
    request.visitorTokenLifeMs = lifeLeftMs;
    return true;
  }
}

/** The page's origin, when a browser sent one. */
export function originOf(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  return typeof origin === 'string' && origin !== 'null' ? origin : undefined;
}

/** The conversation whose token the call carries: `handler(@Visitor() visitor: ConversationRow)`. */
export const Visitor = createParamDecorator((_: unknown, ctx: ExecutionContext): ConversationRow => {
  const visitor = ctx.switchToHttp().getRequest<VisitorRequest>().visitor;
  if (!visitor) throw new ApiError('unauthorized', 'Open a chat session first: Authorization: Bearer vis_…');
  return visitor;
});

/** How long the call's visitor token still lasts (ms): a stream ends then. */
export const VisitorTokenLife = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): number => ctx.switchToHttp().getRequest<VisitorRequest>().visitorTokenLifeMs ?? 0,
);

/** The longest a timer waits (about 24.8 days): a later end is set again then. */
const MAX_TIMER_MS = 2_147_483_647;

/** Ends a visitor's stream when its token's lifetime is over (the widget then opens a new session). */
export function endWhenTokenExpires(raw: ServerResponse, lifeMs: number): void {
  const endsAt = Date.now() + lifeMs;
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const left = endsAt - Date.now();
    timer = setTimeout(() => (left > MAX_TIMER_MS ? arm() : raw.end()), Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  raw.once('close', () => clearTimeout(timer));
}
