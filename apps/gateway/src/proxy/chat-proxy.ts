import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@svc/platform';
import type { FastifyInstance } from 'fastify';
import { GatewayConfig } from '../gateway.config';
import { PassThroughUpstream } from './pass-through';

/** The chat's public paths: its widget, demo page, visitor API (`/chat/v1/*`), email confirmation links and the WhatsApp webhook. */
export const CHAT_PREFIX = '/chat/';
/** What the chat needs from a visitor's browser: its token, the page's origin, the stream position. */
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'accept-language',
  'user-agent',
  'authorization',
  'origin',
  'last-event-id',
  'access-control-request-method',
  'access-control-request-headers',
  // The WhatsApp Cloud API's signature of the raw body (the body is forwarded byte for byte).
  'x-hub-signature-256',
] as const;
/**
 * `/chat/*` to the chat app, unchanged and without the API's key checks (visitors carry their own
 * token, which the chat checks). Each open event stream holds a connection for as long as the
 * visitor stays (see PassThroughUpstream).
 */
@Injectable()
export class ChatProxy extends PassThroughUpstream {
  constructor(@Inject(APP_CONFIG) config: GatewayConfig) {
    super('chat', config.CHAT_URL, config.UPSTREAM_TIMEOUT_MS, FORWARDED_REQUEST_HEADERS);
  }

  install(fastify: FastifyInstance): void {
    fastify.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${CHAT_PREFIX}*`,
      handler: (request, reply) => this.forward(request, reply, request.body instanceof Buffer ? request.body : undefined),
    });
  }
}
