import { runMigrations } from '@svc/persistence';
import { EVENTS_MIGRATIONS, EVENTS_SCHEMA } from './migrations';

/** `node dist/apps/events-api/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: EVENTS_SCHEMA, migrations: EVENTS_MIGRATIONS, applicationName: 'events-api-migrate' });
