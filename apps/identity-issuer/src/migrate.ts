import { runMigrations } from '@svc/persistence';
import { IDENTITY_MIGRATIONS, IDENTITY_SCHEMA } from './migrations';

/** `node dist/apps/identity-issuer/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: IDENTITY_SCHEMA, migrations: IDENTITY_MIGRATIONS, applicationName: 'identity-issuer-migrate' });
