import { Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { EventConversation, INTERNAL_ROUTES, INVALID_FIELDS } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import type { FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import { LiveResponses } from '../members/live-responses';
import { MemberSession } from '../members/members.repository';
import { SessionGuard } from '../members/session.guard';
import { CONSOLE_API, targetPath } from './service-routes';
import { passOn, Upstreams } from './upstreams';

const ID = /^[1-9][0-9]{0,17}$/;
const { chat: CHAT, contacts: CONTACTS } = INTERNAL_ROUTES;

type MemberRequest<T extends RouteGenericInterface = RouteGenericInterface> = FastifyRequest<T> & { member: MemberSession };

/**
 * The console's routes that are more than one service call, for a signed-in member acting in an
 * account (SessionGuard): Withdraw (the team withdraws a consent from a conversation: contacts-api
 * writes it with `consent.withdrawn`, `withdrawn_by: team`, and the conversation it was done from)
 * and the inbox's live stream (the chat's account-wide change signal, streamed through, ended as
 * soon as the member's session is).
 */
@ApiExcludeController()
@Controller(CONSOLE_API.slice(1))
@UseGuards(SessionGuard)
export class TeamActionsController {
  constructor(
    private readonly upstreams: Upstreams,
    private readonly live: LiveResponses,
  ) {}

  @Post('customers/:svcId/consents/:consentId/withdraw')
  @HttpCode(200)
  async withdraw(
    @Req() request: MemberRequest<{ Params: { svcId: string; consentId: string }; Body: { conversation_id?: unknown } | undefined }>,
  ): Promise<unknown> {
    const context = await this.upstreams.context(request.member, request.id);
    const { svcId, consentId } = request.params;
    const conversationId = request.body?.conversation_id;
    if (!ID.test(svcId))
      throw new ApiError('validation_failed', 'The customer id is not valid.', [
        { path: 'svcId', message: 'svcId must be a positive integer' },
      ]);
    if (conversationId !== undefined && conversationId !== null && !ID.test(String(conversationId))) {
      throw new ApiError('validation_failed', INVALID_FIELDS, [
        { path: 'conversation_id', message: 'conversation_id must be a conversation id' },
      ]);
    }
    let conversation: EventConversation | null = null;
    if (conversationId !== undefined && conversationId !== null) {
      const found = await this.upstreams.expect<{ conversation: EventConversation }>(
        CHAT.conversation.app,
        CHAT.conversation.method,
        targetPath(CHAT.conversation.path, { id: String(conversationId) }, ''),
        context,
      );
      conversation = { id: found.conversation.id, channel: found.conversation.channel, url: found.conversation.url };
    }
    const response = await this.upstreams.call(
      CONTACTS.withdrawConsent.app,
      CONTACTS.withdrawConsent.method,
      targetPath(CONTACTS.withdrawConsent.path, { svcId, consentId }, ''),
      context,
      { withdrawn_by: 'team', conversation },
    );
    if (response.status >= 400) throw passOn(response);
    return response.body;
  }

  /** The inbox's live signal: one long response per open inbox. */
  @Get('inbox/stream')
  async inboxStream(@Req() request: MemberRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const member = request.member;
    const context = await this.upstreams.context(member, request.id);
    const abort = new AbortController();
    // Ends with the session (a removal, a new password, a sign-out, another account chosen): the page's next connection is refused.
    const release = this.live.hold(member, () => {
      abort.abort();
      reply.raw.destroy();
    });
    reply.raw.once('close', () => {
      release();
      abort.abort();
    });
    const lastEventId = request.headers['last-event-id'];
    const stream = await this.upstreams.openStream(
      CHAT.inboxStream.app,
      CHAT.inboxStream.path,
      context,
      typeof lastEventId === 'string' ? { 'last-event-id': lastEventId } : {},
      abort.signal,
    );
    stream.on('error', () => undefined);
    return reply
      .code(200)
      .header('content-type', 'text/event-stream')
      .header('cache-control', 'no-store')
      .header('x-accel-buffering', 'no')
      .send(stream);
  }
}
