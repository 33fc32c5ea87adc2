import { statementsOf } from '@svc/persistence';
import type { Statements } from './statements.generated';

/** This project's statement tags and runners, each keyed statement's parameters typed from the schema (ADR 017). */
export const { sql, prepared, queryRows, queryOne, execute } = statementsOf<Statements>();
