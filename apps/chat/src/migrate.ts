import { runMigrations } from '@svc/persistence';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from './migrations';

/** `node dist/apps/chat/src/migrate.js`: the migration step (Kubernetes Job, `npm run migrate`). */
void runMigrations({ schema: CHAT_SCHEMA, migrations: CHAT_MIGRATIONS, applicationName: 'chat-migrate' });
