import { Body, Controller, Param, Post, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  ChatMessage,
  ConnectWhatsappDto,
  ConversationIdParams,
  GatewayContext,
  INTERNAL_ROUTES,
  PhoneCodeResponse,
  WhatsappNumberResponse,
  WhatsappTemplateDto,
  WhatsappTextDto,
} from '@svc/contracts';
import { Caller, InternalCallers, RequestId, Route } from '@svc/platform';
import { ConversationRow } from '../conversations/conversations.repository';
import { InternalChatController } from '../settings/internal-call.guard';
import { Visitor, VisitorGuard } from '../visitor/visitor.guard';
import { VisitorLimits } from '../visitor/visitor-limits';
import { ChannelsRepository } from './channels.repository';
import { WhatsappService } from './whatsapp.service';

/**
 * For the admin command line, the console and MCP (signed for the chat, not routed by the
 * gateway): connecting a WhatsApp number, and what the team sends on WhatsApp (the 24-hour rule).
 */
@InternalChatController()
export class ChannelsInternalController {
  constructor(
    private readonly channels: ChannelsRepository,
    private readonly whatsapp: WhatsappService,
  ) {}

  @Route(INTERNAL_ROUTES.chat.whatsappNumber)
  @InternalCallers('admin')
  connect(@Caller() caller: GatewayContext, @Body() body: ConnectWhatsappDto): Promise<WhatsappNumberResponse> {
    return this.channels.connectNumber(caller.account.id, body.phone_number_id, body.number);
  }

  /** 201 with the team's message: an approved template, queued for the Cloud API; 409 with the reason when the 24-hour rule refuses it. */
  @Route(INTERNAL_ROUTES.chat.whatsappTemplate)
  @InternalCallers('console', 'mcp-server')
  template(
    @Caller() caller: GatewayContext,
    @Param() { id }: ConversationIdParams,
    @Body() body: WhatsappTemplateDto,
  ): Promise<{ message: ChatMessage }> {
    return this.whatsapp.sendTemplate(
      caller.account.id,
      id,
      { template: body.template, lang: body.lang, params: body.params ?? [] },
      caller.requestId,
    );
  }

  /** 201 with the team's message: a free-form reply, only within 24 hours of the customer's last message (409 after). */
  @Route(INTERNAL_ROUTES.chat.whatsappText)
  @InternalCallers('console')
  text(
    @Caller() caller: GatewayContext,
    @Param() { id }: ConversationIdParams,
    @Body() body: WhatsappTextDto,
  ): Promise<{ message: ChatMessage }> {
    return this.whatsapp.sendText(caller.account.id, id, body.text, caller.requestId);
  }
}

/** The widget's phone confirmation (`/chat/v1/phone-code`). */
@ApiExcludeController()
@Controller('chat/v1')
export class PhoneCodeController {
  constructor(
    private readonly whatsapp: WhatsappService,
    private readonly limits: VisitorLimits,
  ) {}

  @Post('phone-code')
  @UseGuards(VisitorGuard)
  async phoneCode(@Visitor() visitor: ConversationRow, @RequestId() id: string): Promise<PhoneCodeResponse> {
    await this.limits.take(visitor, 'phone_code');
    return this.whatsapp.phoneCode(visitor, id);
  }
}
