import { runMigrations } from '@svc/persistence';
import { KNOWLEDGE_MIGRATIONS, KNOWLEDGE_SCHEMA } from './migrations';

/** `node dist/apps/knowledge-api/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: KNOWLEDGE_SCHEMA, migrations: KNOWLEDGE_MIGRATIONS, applicationName: 'knowledge-api-migrate' });
