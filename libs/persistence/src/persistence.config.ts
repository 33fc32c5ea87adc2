import { bool, count, url } from '@svc/platform';
import { DEFAULT_DATABASE_URL } from './data-source';

/** The database settings of an app that owns a schema; `owns` says what, for the docs. */
export function databaseConfigSpec(owns: string) {
  return {
    DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: `PostgreSQL; ${owns}.` }),
    DATABASE_POOL_SIZE: count({ default: 10, desc: 'Connections in the PostgreSQL pool.' }),
    MIGRATE_ON_START: bool({ default: true, desc: 'Apply pending migrations at start (they also run as `npm run migrate`).' }),
  };
}

/** The settings `PersistenceModule.forApp` reads. */
export interface DatabaseConfig {
  DATABASE_URL: string;
  DATABASE_POOL_SIZE: number;
  MIGRATE_ON_START: boolean;
}
