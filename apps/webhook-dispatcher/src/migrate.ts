import { runMigrations } from '@svc/persistence';
import { WEBHOOKS_MIGRATIONS, WEBHOOKS_SCHEMA } from './migrations';

/** `node dist/apps/webhook-dispatcher/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: WEBHOOKS_SCHEMA, migrations: WEBHOOKS_MIGRATIONS, applicationName: 'webhook-dispatcher-migrate' });
