import { outboxMigration, outboxTraceMigration } from '@svc/messaging';
import { CreateCustomersAndConsents1763722800000 } from './1763722800000-CreateCustomersAndConsents';

/** Schema `contacts`: customers, consents and the outbox of their domain messages. Owned by contacts-api. */
export const CONTACTS_SCHEMA = 'contacts';
export const CONTACTS_MIGRATIONS = [
  CreateCustomersAndConsents1763722800000,
  outboxMigration(CONTACTS_SCHEMA),
  outboxTraceMigration(CONTACTS_SCHEMA, 1765000000000),
];
