import { Body, Headers, Param, Query, Req, Res } from '@nestjs/common';
import {
  GatewayContext,
  InboxConversationResponse,
  InboxConversationsPage,
  INBOX_CURSOR,
  INTERNAL_ROUTES,
  ListConversationsQueryDto,
  TeamReplyDto,
  TeamReplyResponse,
} from '@svc/contracts';
import { ApiError, Caller, InternalCallers, Route } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InternalChatController } from '../settings/internal-call.guard';
import { InboxStreamService } from './inbox-stream.service';
import { InboxService, notFound } from './inbox.service';

/** A path id: a whole number, else nothing can have it (404). */
export function pathId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(what);
  return Number(raw);
}

/**
 * The inbox for the console and the MCP server (not routed by the gateway): a context signed for
 * the chat names the account, and every read and write is that account's.
 */
@InternalChatController('console', 'mcp-server')
export class InboxController {
  constructor(
    private readonly inbox: InboxService,
    private readonly streams: InboxStreamService,
  ) {}

  @Route(INTERNAL_ROUTES.chat.conversations)
  list(@Caller() caller: GatewayContext, @Query() query: ListConversationsQueryDto): Promise<InboxConversationsPage> {
    return this.inbox.list(caller.account.id, query, caller.requestId);
  }

  @Route(INTERNAL_ROUTES.chat.conversation)
  get(@Caller() caller: GatewayContext, @Param('id') id: string): Promise<InboxConversationResponse> {
    return this.inbox.get(caller.account.id, pathId(id, 'conversation'), caller.requestId);
  }

  @Route(INTERNAL_ROUTES.chat.reply)
  reply(@Caller() caller: GatewayContext, @Param('id') id: string, @Body() body: TeamReplyDto): Promise<TeamReplyResponse> {
    return this.inbox.reply(caller.account.id, pathId(id, 'conversation'), body.text, caller.requestId);
  }

  @Route(INTERNAL_ROUTES.chat.inboxStream)
  @InternalCallers('console')
  stream(
    @Caller() caller: GatewayContext,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): void {
    if (lastEventId !== undefined && !INBOX_CURSOR.test(lastEventId))
      throw new ApiError('invalid_parameter', 'Last-Event-ID must be the id of an earlier event of this stream.');
    reply.hijack();
    this.streams.serve(caller.account.id, lastEventId, reply.raw, { 'x-request-id': request.id });
  }
}
