import { Body, Controller, Get, Headers, HttpCode, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  ChatConversationResponse,
  ChatConversationState,
  ChatMessage,
  ChatSessionResponse,
  ChatTexts,
  ChatTextsQueryDto,
  CreateChatSessionDto,
  Booking,
  EventConsent,
  FutureConsentDto,
  HandoverReachDto,
  RequestBookingDto,
  SendChatMessageDto,
} from '@svc/contracts';
import { ApiError, RequestId } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BookingsService } from '../bookings/bookings.service';
import { ConversationService } from '../conversations/conversation.service';
import { conversationView } from '../conversations/conversation-view';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { SessionsService } from '../conversations/sessions.service';
import { StreamService } from '../stream/stream.service';
import { languageOfAcceptLanguage, widgetTexts } from '../texts/texts';
import { VisitorLimits } from './visitor-limits';
import { endWhenTokenExpires, originOf, Visitor, VisitorGuard, VisitorTokenLife } from './visitor.guard';

/** `Last-Event-ID` or `?after=`: the last message id the widget has; 0 when none. */
function resumeAfter(lastEventId: string | undefined, after: string | undefined): number {
  const given = lastEventId ?? after;
  if (given === undefined || given === '') return 0;
  if (!/^\d{1,9}$/.test(given))
    throw new ApiError('invalid_parameter', 'after (or Last-Event-ID) must be a message id, a whole number ≥ 0.');
  return Number(given);
}

/**
 * The visitor API the widget calls from a business's page (`/chat/v1/*`, documented in the
 * docs/chat.md, "The visitor API"). Thin: sessions, conversation, messages, hand-over, stream, texts.
 */
@ApiExcludeController()
@Controller('chat/v1')
export class VisitorController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly conversation: ConversationService,
    private readonly conversations: ConversationsRepository,
    private readonly streams: StreamService,
    private readonly bookings: BookingsService,
    private readonly limits: VisitorLimits,
  ) {}

  @Post('sessions')
  async open(
    @Body() body: CreateChatSessionDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ChatSessionResponse> {
    const session = await this.sessions.open(body, {
      address: request.ip,
      origin: originOf(request),
      lang: languageOfAcceptLanguage(request.headers['accept-language']),
      requestId: request.id,
    });
    reply.code(session.created ? 201 : 200);
    return session.body;
  }

  @Get('conversation')
  @UseGuards(VisitorGuard)
  read(@Visitor() visitor: ConversationRow): Promise<ChatConversationResponse> {
    return conversationView(this.conversations, visitor);
  }

  @Post('messages')
  @UseGuards(VisitorGuard)
  async send(
    @Visitor() visitor: ConversationRow,
    @Body() body: SendChatMessageDto,
    @RequestId() id: string,
  ): Promise<{ message: ChatMessage }> {
    return { message: await this.conversation.send(visitor, body.text, id) };
  }

  @Post('handover')
  @HttpCode(200)
  @UseGuards(VisitorGuard)
  async handover(@Visitor() visitor: ConversationRow, @RequestId() id: string): Promise<ChatConversationState> {
    await this.limits.take(visitor, 'handover');
    return this.conversation.handover(visitor, id);
  }

  @Post('handover/reach')
  @HttpCode(200)
  @UseGuards(VisitorGuard)
  async reach(
    @Visitor() visitor: ConversationRow,
    @Body() body: HandoverReachDto,
    @RequestId() id: string,
  ): Promise<ChatConversationState> {
    await this.limits.take(visitor, 'handover');
    return this.conversation.reach(visitor, body, id);
  }

  /** A booking request for the piece the assistant's last answer cited. */
  @Post('bookings')
  @UseGuards(VisitorGuard)
  async requestBooking(
    @Visitor() visitor: ConversationRow,
    @Body() body: RequestBookingDto,
  ): Promise<{ booking: Omit<Booking, 'contact'> }> {
    await this.limits.take(visitor, 'booking');
    return this.bookings.request(visitor, body);
  }

  @Post('consents')
  @UseGuards(VisitorGuard)
  async consent(
    @Visitor() visitor: ConversationRow,
    @Body() body: FutureConsentDto,
    @RequestId() id: string,
  ): Promise<{ consent: EventConsent }> {
    await this.limits.take(visitor, 'consent');
    return this.conversation.consent(visitor, body, id);
  }

  @Get('stream')
  @UseGuards(VisitorGuard)
  async stream(
    @Visitor() visitor: ConversationRow,
    @VisitorTokenLife() tokenLifeMs: number,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') after: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const from = resumeAfter(lastEventId, after);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (typeof value === 'string') headers[name] = value;
    headers['x-request-id'] = reply.request.id;
    // Refused past the limits before the reply is taken over: the error is then the usual JSON.
    await this.streams.serve(visitor, reply.request.ip, from, reply.raw, headers);
    reply.hijack();
    endWhenTokenExpires(reply.raw, tokenLifeMs);
  }

  @Get('texts')
  texts(@Query() query: ChatTextsQueryDto): ChatTexts {
    return widgetTexts(query.lang);
  }
}
