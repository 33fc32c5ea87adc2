import { runMigrations } from '@svc/persistence';
import { CONTACTS_MIGRATIONS, CONTACTS_SCHEMA } from './migrations';

/** `node dist/apps/contacts-api/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: CONTACTS_SCHEMA, migrations: CONTACTS_MIGRATIONS, applicationName: 'contacts-api-migrate' });
