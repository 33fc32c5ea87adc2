import { runMigrations } from '@svc/persistence';
import { CONSOLE_MIGRATIONS, CONSOLE_SCHEMA } from './migrations';

/** `node dist/apps/console/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: CONSOLE_SCHEMA, migrations: CONSOLE_MIGRATIONS, applicationName: 'console-migrate' });
