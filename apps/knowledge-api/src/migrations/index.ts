import { outboxMigration } from '@svc/messaging';
import { CreateKnowledgePieces1763900000000 } from './1763900000000-CreateKnowledgePieces';

/** Schema `knowledge`: pieces, their search index and the outbox of their domain messages. Owned by knowledge-api. */
export const KNOWLEDGE_SCHEMA = 'knowledge';
export const KNOWLEDGE_MIGRATIONS = [CreateKnowledgePieces1763900000000, outboxMigration(KNOWLEDGE_SCHEMA)];
