import { outboxMigration, outboxTraceMigration } from '@svc/messaging';
import { CreateEventLog1763800000001 } from './1763800000001-CreateEventLog';
import { ErasedContacts1763800000003 } from './1763800000003-ErasedContacts';

export const EVENTS_SCHEMA = 'events';
export const EVENTS_MIGRATIONS = [
  CreateEventLog1763800000001,
  outboxMigration(EVENTS_SCHEMA, 1763800000002),
  ErasedContacts1763800000003,
  outboxTraceMigration(EVENTS_SCHEMA, 1765000000000),
];
