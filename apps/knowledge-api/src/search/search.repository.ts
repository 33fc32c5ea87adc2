import { queryRows } from '@svc/persistence';
import { IndexedPiece } from '@svc/search';
import { DataSource } from 'typeorm';

/** A piece as the index reads it, with its account. */
export interface PieceRow extends IndexedPiece {
  account_id: string;
}

const COLUMNS = 'id::text AS id, account_id, external_ref, heading, text, url, lang, updated_at::text AS version';

/** The SQL of schema `knowledge` the in-memory search reads its pieces with, and nothing else. */
export class SearchRepository {
  constructor(private readonly db: DataSource) {}

  /** Up to `limit` pieces of every account after id `after`, in id order: the index's load at start. */
  page(after: string, limit: number): Promise<PieceRow[]> {
    return queryRows<PieceRow>(
      this.db,
      { name: 'knowledge_index_page', text: `SELECT ${COLUMNS} FROM knowledge.pieces WHERE id > $1::bigint ORDER BY id LIMIT $2` },
      [after, limit],
    );
  }

  /** The pieces with these ids that still exist (a deleted one is missing). */
  byIds(ids: string[]): Promise<PieceRow[]> {
    return queryRows<PieceRow>(
      this.db,
      { name: 'knowledge_index_ids', text: `SELECT ${COLUMNS} FROM knowledge.pieces WHERE id = ANY($1::bigint[])` },
      [ids],
    );
  }

  /** The account's pieces with these external_refs that exist. */
  byRefs(accountId: string, refs: string[]): Promise<PieceRow[]> {
    return queryRows<PieceRow>(
      this.db,
      {
        name: 'knowledge_index_refs',
        text: `SELECT ${COLUMNS} FROM knowledge.pieces WHERE account_id = $1 AND external_ref = ANY($2::text[])`,
      },
      [accountId, refs],
    );
  }
}
