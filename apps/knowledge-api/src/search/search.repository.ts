import { Columns } from '@svc/persistence';
import { IndexedPiece } from '@svc/search';
import { DataSource } from 'typeorm';
import type { Pieces, Taught } from '../schema.generated';
import { prepared, queryRows } from '../statements';

/** A piece as the index reads it (COLUMNS: the id and version read as text), with its account; its `lang` is one the search stems. */
export type PieceRow = Columns<Pieces, 'account_id' | 'external_ref' | 'heading' | 'text' | 'url' | 'lang'> &
  Pick<IndexedPiece, 'lang'> & { id: string; version: string };

/** A taught question as the index reads it (TAUGHT_COLUMNS: the id read as text), with its account. */
export type TaughtRow = Columns<Taught, 'account_id' | 'question' | 'lang' | 'external_ref'> & { id: string };

const TAUGHT_COLUMNS = 'id::text AS id, account_id, question, lang, external_ref';

const COLUMNS = 'id::text AS id, account_id, external_ref, heading, text, url, lang, updated_at::text AS version';

/** The SQL of schema `knowledge` the in-memory search reads its pieces and taught questions with, and nothing else. */
export class SearchRepository {
  constructor(private readonly db: DataSource) {}

  /** Every account with pieces or taught questions: a search shard's replica loads those of its shard. */
  async accounts(): Promise<string[]> {
    const rows = await queryRows<{ account_id: string }>(
      this.db,
      prepared('knowledge_index_accounts')`SELECT account_id FROM knowledge.pieces UNION SELECT account_id FROM knowledge.taught`,
      [],
    );
    return rows.map((row) => row.account_id);
  }

  /**
   * Up to `limit` pieces after id `after`, in id order: the index's load at start. Of every account,
   * or with `accounts` of those only (a search shard's).
   */
  page(after: string, limit: number, accounts?: readonly string[]): Promise<PieceRow[]> {
    if (!accounts)
      return queryRows<PieceRow>(
        this.db,
        prepared('knowledge_index_page')`SELECT ${COLUMNS} FROM knowledge.pieces WHERE id > $1::bigint ORDER BY id LIMIT $2`,
        [after, limit],
      );
    return queryRows<PieceRow>(
      this.db,
      prepared('knowledge_index_shard_page')`
        SELECT ${COLUMNS} FROM knowledge.pieces WHERE id > $1::bigint AND account_id = ANY($3::uuid[]) ORDER BY id LIMIT $2`,
      [after, limit, accounts],
    );
  }

  /** Up to `limit` taught questions after id `after`, in id order (of every account, or of `accounts`): the index's load at start. */
  taughtPage(after: string, limit: number, accounts?: readonly string[]): Promise<TaughtRow[]> {
    if (!accounts)
      return queryRows<TaughtRow>(
        this.db,
        prepared('knowledge_index_taught_page')`SELECT ${TAUGHT_COLUMNS} FROM knowledge.taught WHERE id > $1::bigint ORDER BY id LIMIT $2`,
        [after, limit],
      );
    return queryRows<TaughtRow>(
      this.db,
      prepared('knowledge_index_shard_taught_page')`
        SELECT ${TAUGHT_COLUMNS} FROM knowledge.taught WHERE id > $1::bigint AND account_id = ANY($3::uuid[]) ORDER BY id LIMIT $2`,
      [after, limit, accounts],
    );
  }

  /** Everything the account taught. */
  taughtOf(accountId: string): Promise<TaughtRow[]> {
    return queryRows<TaughtRow>(
      this.db,
      prepared('knowledge_index_taught_of')`SELECT ${TAUGHT_COLUMNS} FROM knowledge.taught WHERE account_id = $1`,
      [accountId],
    );
  }

  /** The pieces with these ids that still exist (a deleted one is missing). */
  byIds(ids: string[]): Promise<PieceRow[]> {
    return queryRows<PieceRow>(
      this.db,
      prepared('knowledge_index_ids')`SELECT ${COLUMNS} FROM knowledge.pieces WHERE id = ANY($1::bigint[])`,
      [ids],
    );
  }

  /** The account's pieces with these external_refs that exist. */
  byRefs(accountId: string, refs: string[]): Promise<PieceRow[]> {
    return queryRows<PieceRow>(
      this.db,
      prepared('knowledge_index_refs')`SELECT ${COLUMNS} FROM knowledge.pieces WHERE account_id = $1 AND external_ref = ANY($2::text[])`,
      [accountId, refs],
    );
  }
}
