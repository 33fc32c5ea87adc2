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
        PlatformModule.forRoot({ config, logger, behindGateway: true }),
        PersistenceModule.forRoot({
          schema: CONTACTS_SCHEMA,
          url: config.DATABASE_URL,
          migrations: CONTACTS_MIGRATIONS,
          poolSize: config.DATABASE_POOL_SIZE,
          migrateOnStart: config.MIGRATE_ON_START,
          applicationName: 'contacts-api',
        }),
        MessagingModule.forApp('contacts-api', config, CONTACTS_SCHEMA),
      ],
      controllers: [ContactsController, InternalContactsController],
      providers: [{ provide: ContactsRepository, inject: [DataSource], useFactory: (db: DataSource) => new ContactsRepository(db) }, ContactsService],
    };
  }
}
