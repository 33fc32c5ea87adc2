import { CHAT_QUEUE, consumeQueues } from '@svc/messaging';
import { ApiError, AppDefinition, trustProxyOption } from '@svc/platform';
import type { FastifyInstance } from 'fastify';
import { chatConfigSpec } from './chat.config';
import { ChatModule } from './chat.module';

const VISITOR_API = '/chat/v1/';

/**
 * CORS for the widget, which runs on the business's pages: the page's origin is echoed (the
 * visitor token travels in a header, never a cookie). A preflight cannot say which account it is
 * for (no body, no token yet), so it is answered for any origin; the call itself is refused with
 * 403 `forbidden_origin` when the account allows other origins only.
 */
export function installCors(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (typeof origin === 'string' && request.url.startsWith(VISITOR_API)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      reply.header('access-control-expose-headers', 'x-request-id');
    }
    done();
  });
  fastify.options(`${VISITOR_API}*`, (_request, reply) => {
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST, OPTIONS')
      .header('access-control-allow-headers', 'authorization, content-type, last-event-id')
      .header('access-control-max-age', '600')
      .send();
  });
}

const CONFIRM_LINKS = '/chat/confirm/';

/** The confirmation page's form posts itself without script (an empty form body, ignored); other routes stay JSON only. */
export function acceptConfirmForm(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: 1024 }, (request, _body, done) => {
    if (request.url.startsWith(CONFIRM_LINKS)) done(null, undefined);
    else done(new ApiError('unsupported_media_type', 'The request body must be JSON; send Content-Type: application/json.'), undefined);
  });
}

export const app: AppDefinition<typeof chatConfigSpec> = {
  name: 'chat',
  configSpec: chatConfigSpec,
  module: (config, logger) => ChatModule.forRoot(config, logger),
  serverOptions: (config) => ({ trustProxy: trustProxyOption(config.TRUST_PROXY) }),
  configure: async (nest, fastify, config) => {
    installCors(fastify);
    acceptConfirmForm(fastify);
    await consumeQueues(nest, [CHAT_QUEUE], config.RABBITMQ_PREFETCH);
  },
};
