import { KnowledgePieceDto } from '@svc/contracts';
import { domainMessage, enqueueDomainMessages } from '@svc/messaging';
import { Columns } from '@svc/persistence';
import { SearchLanguage } from '@svc/search';
import { DataSource, EntityManager } from 'typeorm';
import { KNOWLEDGE_SCHEMA } from '../migrations';
import type { Pieces } from '../schema.generated';
import { execute, queryOne, queryRows, sql } from '../statements';

/** A piece as written: the language decides how its search vector is stemmed. */
export interface PieceInput {
  external_ref: string;
  heading: string;
  text: string;
  url: string | null;
  lang: SearchLanguage;
}

const PIECE_COLUMNS = 'external_ref, heading, text, url, created_at, updated_at';
/** PIECE_COLUMNS: a piece as the API shows it (KnowledgePieceDto). */
type PieceRow = Columns<Pieces, 'external_ref' | 'heading' | 'text' | 'url' | 'created_at' | 'updated_at'>;

/** The SQL of one account's write transaction, which holds that account's write lock. */
export class PiecesWriter {
  constructor(
    private readonly manager: EntityManager,
    private readonly accountId: string,
  ) {}

  async count(): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      this.manager,
      sql('knowledge_pieces_count')`SELECT count(*)::int AS n FROM knowledge.pieces WHERE account_id = $1`,
      [this.accountId],
    );
    return row.n;
  }

  /** Which of `refs` already name a piece of the account. */
  async existingRefs(refs: string[]): Promise<Set<string>> {
    const rows = await queryRows<Columns<Pieces, 'external_ref'>>(
      this.manager,
      sql('knowledge_pieces_existing_refs')`
        SELECT external_ref FROM knowledge.pieces WHERE account_id = $1 AND external_ref = ANY($2::text[])`,
      [this.accountId, refs],
    );
    return new Set(rows.map((r) => r.external_ref));
  }

  /** Inserts or replaces every piece in one statement (the search index follows in the same one). */
  async upsert(pieces: PieceInput[]): Promise<KnowledgePieceDto[]> {
    const column = <K extends keyof PieceInput>(key: K) => pieces.map((p) => p[key]);
    return queryRows<PieceRow>(
      this.manager,
      sql('knowledge_pieces_upsert')`INSERT INTO knowledge.pieces (account_id, external_ref, heading, text, url, lang)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
       ON CONFLICT (account_id, external_ref) DO UPDATE
         SET heading = EXCLUDED.heading, text = EXCLUDED.text, url = EXCLUDED.url, lang = EXCLUDED.lang, updated_at = now()
       RETURNING ${PIECE_COLUMNS}`,
      [this.accountId, column('external_ref'), column('heading'), column('text'), column('url'), column('lang')],
    );
  }

  /** True when the piece existed. */
  async delete(ref: string): Promise<boolean> {
    const deleted = await execute(
      this.manager,
      sql('knowledge_pieces_delete')`DELETE FROM knowledge.pieces WHERE account_id = $1 AND external_ref = $2`,
      [this.accountId, ref],
    );
    return deleted > 0;
  }

  /** One `knowledge.changed` message per piece, committed with the change itself (outbox). */
  async announce(refs: string[], change: 'upserted' | 'deleted'): Promise<void> {
    const messages = refs.map((ref) => domainMessage('knowledge.changed', this.accountId, { external_ref: ref, change }));
    await enqueueDomainMessages(this.manager, KNOWLEDGE_SCHEMA, messages);
  }
}

/** The SQL of schema `knowledge` for pieces, and nothing else. */
export class PiecesRepository {
  constructor(private readonly db: DataSource) {}

  /** Runs `work` under the account's write lock, so its quota holds under concurrent writes. */
  writeForAccount<T>(accountId: string, work: (writer: PiecesWriter) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => {
      await execute(manager, sql('knowledge_pieces_write_for_account')`SELECT pg_advisory_xact_lock(hashtext($1))`, [
        `knowledge:${accountId}`,
      ]);
      return work(new PiecesWriter(manager, accountId));
    });
  }

  async find(accountId: string, ref: string): Promise<KnowledgePieceDto | undefined> {
    return queryOne<PieceRow>(
      this.db,
      sql('knowledge_pieces_find')`SELECT ${PIECE_COLUMNS} FROM knowledge.pieces WHERE account_id = $1 AND external_ref = $2`,
      [accountId, ref],
    );
  }

  /** Up to `limit` pieces after `after` in external_ref code point order (collation "C"; '' sorts first). */
  list(accountId: string, after: string | undefined, limit: number): Promise<KnowledgePieceDto[]> {
    return queryRows<PieceRow>(
      this.db,
      sql('knowledge_pieces_list')`
        SELECT ${PIECE_COLUMNS} FROM knowledge.pieces WHERE account_id = $1 AND external_ref > $2 ORDER BY external_ref LIMIT $3`,
      [accountId, after ?? '', limit],
    );
  }
}
