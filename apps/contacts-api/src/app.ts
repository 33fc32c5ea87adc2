import { AppDefinition } from '@svc/platform';
import { contactsApiConfigSpec } from './contacts-api.config';
import { ContactsApiModule } from './contacts-api.module';

export const app: AppDefinition<typeof contactsApiConfigSpec> = {
  name: 'contacts-api',
  configSpec: contactsApiConfigSpec,
  module: (config, logger) => ContactsApiModule.forRoot(config, logger),
};
