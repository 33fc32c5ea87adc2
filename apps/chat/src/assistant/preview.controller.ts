import { Body, HttpCode } from '@nestjs/common';
import { AssistantPreviewDto, AssistantPreviewResponse, GatewayContext, INTERNAL_ROUTES } from '@svc/contracts';
import { Caller, Route } from '@svc/platform';
import { InternalChatController } from '../settings/internal-call.guard';
import { textLanguage } from '../texts/texts';
import { AnswerWriter } from './answer-writer';

/**
 * "Ask as a customer" (console) and `search_knowledge` (MCP): what the assistant would answer a
 * question, with the same search, rules and optional writer as in a conversation; nothing is written.
 */
@InternalChatController('console', 'mcp-server')
export class PreviewController {
  constructor(private readonly writer: AnswerWriter) {}

  @Route(INTERNAL_ROUTES.chat.preview)
  @HttpCode(200)
  async preview(@Caller() caller: GatewayContext, @Body() body: AssistantPreviewDto): Promise<AssistantPreviewResponse> {
    const lang = textLanguage(body.lang);
    const reply = await this.writer.reply(caller.account.id, lang, body.question, caller.requestId);
    return { answer: reply.text, cited_piece: reply.citation, offers_person: reply.offersPerson, lang };
  }
}
