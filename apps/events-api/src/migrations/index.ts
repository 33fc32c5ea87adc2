import { outboxMigration } from '@svc/messaging';
import { CreateEventLog1763800000001 } from './1763800000001-CreateEventLog';

export const EVENTS_SCHEMA = 'events';
export const EVENTS_MIGRATIONS = [CreateEventLog1763800000001, outboxMigration(EVENTS_SCHEMA, 1763800000002)];
