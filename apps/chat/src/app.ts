import { CHAT_QUEUE, consumeQueues } from '@svc/messaging';
import { ApiError, AppDefinition, trustProxyOption } from '@svc/platform';
import fastifyCors, { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { chatConfigSpec } from './chat.config';
import { ChatModule } from './chat.module';

const VISITOR_API = '/chat/v1/';
/** The widget's API answers pages of any origin; the accounts that list theirs refuse others (OriginPolicy). */
const VISITOR_CORS: FastifyCorsOptions = {
  origin: true,
  methods: ['GET', 'POST', 'OPTIONS'],
  allowedHeaders: ['authorization', 'content-type', 'last-event-id'],
  exposedHeaders: ['x-request-id'],
  maxAge: 600,
  strictPreflight: false,
};

/**
 * CORS for the widget, which runs on the business's pages: the page's origin is echoed (the
 * visitor token travels in a header, never a cookie). A preflight cannot say which account it is
 * for (no body, no token yet), so it is answered for any origin; the call itself is refused with
 * 403 `forbidden_origin` when the account allows other origins only.
 */
export async function installCors(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyCors, {
    delegator: (request, callback) => callback(null, request.url.startsWith(VISITOR_API) ? VISITOR_CORS : { origin: false }),
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
    await installCors(fastify);
    acceptConfirmForm(fastify);
    await consumeQueues(nest, [CHAT_QUEUE], config.RABBITMQ_PREFETCH);
  },
};
