import { DynamicModule, Module } from '@nestjs/common';
import { serviceStack } from '@svc/messaging';
import { repositoryProviders } from '@svc/persistence';
import type { Logger } from 'pino';
import { ContactsApiConfig } from './contacts-api.config';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { InternalContactsController } from './internal-contacts.controller';
import { CONTACTS_MIGRATIONS, CONTACTS_SCHEMA } from './migrations';

/** contacts-api: customers and consents, through the public API and the internal routes of the services that read and write them. */
@Module({
  controllers: [ContactsController, InternalContactsController],
  providers: [...repositoryProviders(ContactsRepository), ContactsService],
})
export class ContactsApiModule {
  /** With its stack: the platform, schema `contacts` (migrated at start), RabbitMQ with the outbox relay; reached through the gateway. */
  static forRoot(config: ContactsApiConfig, logger: Logger): DynamicModule {
    const stack = { config, logger, schema: CONTACTS_SCHEMA, migrations: CONTACTS_MIGRATIONS, behindGateway: true };
    return { module: ContactsApiModule, imports: serviceStack('contacts-api', stack) };
  }
}
