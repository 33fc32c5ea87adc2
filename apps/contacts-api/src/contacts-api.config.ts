import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { Config, serviceConfigSpec } from '@svc/platform';

export const contactsApiConfigSpec = {
  ...serviceConfigSpec('contacts-api', 'Port of contacts-api (reached through the gateway).'),
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  ...databaseConfigSpec('contacts-api owns schema `contacts` (customers, consents)'),
};

export type ContactsApiConfig = Config<typeof contactsApiConfigSpec>;
