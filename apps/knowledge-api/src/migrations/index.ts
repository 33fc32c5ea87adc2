import { outboxMigration, outboxTraceMigration } from '@svc/messaging';
import { CreateKnowledgePieces1763900000000 } from './1763900000000-CreateKnowledgePieces';
import { SearchInMemory1763900000001 } from './1763900000001-SearchInMemory';
import { TaughtQuestions1764800000000 } from './1764800000000-TaughtQuestions';

/** Schema `knowledge`: pieces, the outbox of their domain messages, what the team taught. Owned by knowledge-api. */
export const KNOWLEDGE_SCHEMA = 'knowledge';
export const KNOWLEDGE_MIGRATIONS = [
  CreateKnowledgePieces1763900000000,
  outboxMigration(KNOWLEDGE_SCHEMA),
  SearchInMemory1763900000001,
  TaughtQuestions1764800000000,
  outboxTraceMigration(KNOWLEDGE_SCHEMA, 1765000000000),
];
