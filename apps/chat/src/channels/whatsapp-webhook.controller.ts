import { Controller, Get, Headers, HttpCode, Inject, Injectable, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, rawBodyOf } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isValidWhatsappSignature, sameSecret } from './channel-rules';
import { InboundWhatsappMessage, InboundWhatsappStatus, WhatsappService } from './whatsapp.service';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';

/** What the chat reads of a Cloud API webhook body (everything else is ignored). */
interface CloudWebhookBody {
  entry?: Array<{
    changes?: Array<{
      value?: {
        metadata?: { phone_number_id?: unknown };
        messages?: Array<{ id?: unknown; from?: unknown; type?: unknown; text?: { body?: unknown }; button?: { text?: unknown } }>;
        statuses?: Array<{ id?: unknown; status?: unknown; timestamp?: unknown }>;
      };
    }>;
  }>;
}

export interface ParsedWebhook {
  messages: Array<{ phoneNumberId: string; message: InboundWhatsappMessage }>;
  statuses: Array<{ phoneNumberId: string; status: InboundWhatsappStatus }>;
}

/** The Cloud API app secret (signatures) and verify token (handshake), from the config. */
@Injectable()
export class WhatsappSecrets {
  readonly appSecret: string;
  readonly verifyToken: string;

  constructor(@Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'WHATSAPP_APP_SECRET' | 'WHATSAPP_VERIFY_TOKEN'>) {
    this.appSecret = config.WHATSAPP_APP_SECRET;
    this.verifyToken = config.WHATSAPP_VERIFY_TOKEN;
  }
}

const str = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The text messages and statuses of a Cloud API webhook body; anything malformed or not text is skipped. */
export function parseCloudWebhook(body: unknown): ParsedWebhook {
  const parsed: ParsedWebhook = { messages: [], statuses: [] };
  for (const entry of (body as CloudWebhookBody | null)?.entry ?? []) {
    for (const change of entry?.changes ?? []) {
      const value = change?.value;
      const phoneNumberId = value?.metadata?.phone_number_id;
      if (!str(phoneNumberId)) continue;
      for (const message of value?.messages ?? []) {
        const text = message?.type === 'button' ? message.button?.text : message?.text?.body;
        if (!str(message?.id) || !str(message?.from) || !/^\+?[1-9][0-9]{1,14}$/.test(message.from) || !str(text)) continue;
        parsed.messages.push({ phoneNumberId, message: { id: message.id, from: `+${message.from.replace(/^\+/, '')}`, text } });
      }
      for (const status of value?.statuses ?? []) {
        if (!str(status?.id) || !str(status?.status)) continue;
        const seconds = Number(status.timestamp);
        parsed.statuses.push({
          phoneNumberId,
          status: { id: status.id, status: status.status, at: Number.isFinite(seconds) ? new Date(seconds * 1000) : new Date() },
        });
      }
    }
  }
  return parsed;
}

/**
 * The WhatsApp Cloud API webhook (`/chat/whatsapp/webhook`, routed by the gateway unchanged): the
 * GET verification handshake and the signed POST of messages and statuses. A bad signature is 401
 * and nothing is recorded.
 */
@ApiExcludeController()
@Controller('chat/whatsapp/webhook')
export class WhatsappWebhookController {
  constructor(
    private readonly whatsapp: WhatsappService,
    private readonly secrets: WhatsappSecrets,
  ) {}

  @Get()
  verify(@Query() query: Record<string, unknown>, @Res() reply: FastifyReply): FastifyReply {
    if (
      query['hub.mode'] !== 'subscribe' ||
      !sameSecret(query['hub.verify_token'], this.secrets.verifyToken) ||
      typeof query['hub.challenge'] !== 'string'
    ) {
      throw new ApiError('unauthorized', 'The verify token does not match.');
    }
    return reply.code(200).type('text/plain').send(query['hub.challenge']);
  }

  @Post()
  @HttpCode(200)
  async receive(@Req() request: FastifyRequest, @Headers('x-hub-signature-256') signature: string | undefined): Promise<{ ok: true }> {
    const raw = rawBodyOf(request);
    if (!raw || !isValidWhatsappSignature(raw, signature, this.secrets.appSecret))
      throw new ApiError('unauthorized', 'The X-Hub-Signature-256 signature does not match.');
    const { messages, statuses } = parseCloudWebhook(request.body);
    // In order: a customer's messages stay in the order they were sent.
    for (const { phoneNumberId, message } of messages) await this.whatsapp.receive(phoneNumberId, message, request.id);
    for (const { phoneNumberId, status } of statuses) await this.whatsapp.recordStatus(phoneNumberId, status);
    return { ok: true };
  }
}
