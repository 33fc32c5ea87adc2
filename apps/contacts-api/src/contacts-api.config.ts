import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { baseConfigSpec, Config, internalAuthConfigSpec, port } from '@svc/platform';

export const contactsApiConfigSpec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  PORT: port({ default: 3001, desc: 'Port of contacts-api (reached through the gateway).' }),
  ...databaseConfigSpec('contacts-api owns schema `contacts` (customers, consents)'),
};

export type ContactsApiConfig = Config<typeof contactsApiConfigSpec>;
