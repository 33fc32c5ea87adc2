import { DynamicModule, Module } from '@nestjs/common';
import { ChatClient } from '@svc/internal-clients';
import { serviceStack } from '@svc/messaging';
import { repositoryProviders } from '@svc/persistence';
import { APP_LOGGER, closedOnShutdown, InternalAuth } from '@svc/platform';
import type { Logger } from 'pino';
import { CHAT_MODEL_CLIENT, CHAT_MODEL_WAIT_MS, ChatModel } from './chat-model';
import { CONTACTS_API_CONFIG, ContactsApiConfig } from './contacts-api.config';
import { ContactsController } from './contacts.controller';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';
import { InternalContactsController } from './internal-contacts.controller';
import { CONTACTS_MIGRATIONS, CONTACTS_SCHEMA } from './migrations';

/** contacts-api: customers and consents, through the public API and the internal routes of the services that read and write them. */
@Module({
  controllers: [ContactsController, InternalContactsController],
  providers: [
    ...repositoryProviders(CustomersRepository),
    CustomersService,
    ChatModel,
    {
      provide: CHAT_MODEL_CLIENT,
      inject: [CONTACTS_API_CONFIG, InternalAuth, APP_LOGGER],
      useFactory: (config: ContactsApiConfig, auth: InternalAuth, logger: Logger): ChatClient | null =>
        config.CHAT_URL ? new ChatClient({ url: config.CHAT_URL, auth, timeoutMs: config.CHAT_MODEL_WAIT_MS, logger }) : null,
    },
    { provide: CHAT_MODEL_WAIT_MS, inject: [CONTACTS_API_CONFIG], useFactory: (config: ContactsApiConfig) => config.CHAT_MODEL_WAIT_MS },
    closedOnShutdown(CHAT_MODEL_CLIENT),
  ],
})
export class ContactsApiModule {
  /** With its stack: the platform, schema `contacts` (migrated at start), RabbitMQ with the outbox relay; reached through the gateway. */
  static forRoot(config: ContactsApiConfig, logger: Logger): DynamicModule {
    const stack = { config, logger, schema: CONTACTS_SCHEMA, migrations: CONTACTS_MIGRATIONS, behindGateway: true };
    return {
      module: ContactsApiModule,
      imports: serviceStack('contacts-api', stack),
      providers: [{ provide: CONTACTS_API_CONFIG, useValue: config }],
    };
  }
}
