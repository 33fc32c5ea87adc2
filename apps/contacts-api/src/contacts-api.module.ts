import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { PersistenceModule } from '@svc/persistence';
import { PlatformModule } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
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
      imports: [
        PlatformModule.forRoot({ config, logger, behindGateway: 'contacts-api' }),
        PersistenceModule.forApp('contacts-api', config, CONTACTS_SCHEMA, CONTACTS_MIGRATIONS),
        MessagingModule.forApp('contacts-api', config, CONTACTS_SCHEMA),
      ],
      controllers: [ContactsController, InternalContactsController],
      providers: [{ provide: ContactsRepository, inject: [DataSource], useFactory: (db: DataSource) => new ContactsRepository(db) }, ContactsService],
    };
  }
}
