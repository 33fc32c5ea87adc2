import { ACCOUNTS_MIGRATIONS, ACCOUNTS_SCHEMA } from '@svc/accounts';
import { runMigrations } from '@svc/persistence';

/** `node dist/apps/gateway/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: ACCOUNTS_SCHEMA, migrations: ACCOUNTS_MIGRATIONS, applicationName: 'gateway-migrate' });
