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

@Module({})
export class ContactsApiModule {
  static forRoot(config: ContactsApiConfig, logger: Logger): DynamicModule {
    return {
      module: ContactsApiModule,
      imports: serviceStack('contacts-api', {
        config,
        logger,
        schema: CONTACTS_SCHEMA,
        migrations: CONTACTS_MIGRATIONS,
        behindGateway: true,
      }),
      controllers: [ContactsController, InternalContactsController],
      providers: [...repositoryProviders(ContactsRepository), ContactsService],
    };
  }
}
