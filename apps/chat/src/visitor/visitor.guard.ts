import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '@svc/platform';
import type { FastifyRequest } from 'fastify';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { isVisitorToken, visitorTokenHash } from '../conversations/visitor-token';
import { OriginPolicy } from './origin-policy';

type VisitorRequest = FastifyRequest & { visitor?: ConversationRow };

const BEARER = 'Bearer ';

/** `Authorization: Bearer vis_…`: the visitor's conversation (read fresh), on a page the account allows. */
@Injectable()
export class VisitorGuard implements CanActivate {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly origins: OriginPolicy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<VisitorRequest>();
    const authorization = request.headers.authorization;
    const token = authorization?.startsWith(BEARER) ? authorization.slice(BEARER.length) : '';
    const row = isVisitorToken(token) ? await this.conversations.byTokenHash(visitorTokenHash(token)) : undefined;
    if (!row)
      throw new ApiError('unauthorized', 'Open a chat session first: Authorization: Bearer vis_…', undefined, {
        'www-authenticate': 'Bearer',
      });
    await this.origins.check(row.account_id, originOf(request));
    request.visitor = row;
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
