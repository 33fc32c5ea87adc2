import { FactoryProvider, Module } from '@nestjs/common';
import { ContactsClient, IdentityClient, KnowledgeClient, KnowledgeClientOptions, WidgetsClient } from '@svc/internal-clients';
import { APP_LOGGER, closedOnShutdown, InternalAuth } from '@svc/platform';
import type { Logger } from 'pino';
import { CHAT_CONFIG, ChatConfig } from './chat.config';

type UrlSetting = 'CONTACTS_API_URL' | 'IDENTITY_ISSUER_URL' | 'KNOWLEDGE_API_URL' | 'GATEWAY_URL';

/** An HTTP client of another app, at the URL of `setting`, with the `more` options its class takes. */
function client<T>(
  ServiceClient: new (options: KnowledgeClientOptions) => T,
  setting: UrlSetting,
  more: (config: ChatConfig) => Partial<KnowledgeClientOptions> = () => ({}),
): FactoryProvider<T> {
  return {
    provide: ServiceClient,
    inject: [CHAT_CONFIG, InternalAuth, APP_LOGGER],
    useFactory: (config: ChatConfig, auth: InternalAuth, logger: Logger) =>
      new ServiceClient({ url: config[setting], auth, timeoutMs: config.INTERNAL_TIMEOUT_MS, logger, ...more(config) }),
  };
}

/** knowledge-api's search shards, when it has them. */
const searchShards = (config: ChatConfig) => ({ shardUrls: config.KNOWLEDGE_SEARCH_URLS.split(',').filter(Boolean) });

/** The chat's clients of contacts-api, identity-issuer, knowledge-api and the gateway; their pools close after the listener drained. */
@Module({
  providers: [
    client(ContactsClient, 'CONTACTS_API_URL'),
    client(IdentityClient, 'IDENTITY_ISSUER_URL'),
    client(KnowledgeClient, 'KNOWLEDGE_API_URL', searchShards),
    client(WidgetsClient, 'GATEWAY_URL'),
    closedOnShutdown(ContactsClient, IdentityClient, KnowledgeClient, WidgetsClient),
  ],
  exports: [ContactsClient, IdentityClient, KnowledgeClient, WidgetsClient],
})
export class ChatClientsModule {}
