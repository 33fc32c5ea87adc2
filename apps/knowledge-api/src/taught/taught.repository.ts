import { TAUGHT_LIMITS, TaughtItem } from '@svc/contracts';
import { Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { Pieces, Taught } from '../schema.generated';
import { execute, queryOne, queryRows, sql } from '../statements';

/** A question to teach, as stored. */
export interface TaughtInput {
  question: string;
  /** The question's words, folded: one teaching per account for each. */
  key: string;
  lang: string;
  external_ref: string | null;
  created_by: string;
}

/** COLUMNS. bigint ids come as text; they stay far below 2^53. */
type Row = Columns<Taught, 'id' | 'question' | 'lang' | 'external_ref' | 'created_at' | 'created_by'>;
const COLUMNS = 'id, question, lang, external_ref, created_at, created_by';
const item = (row: Row): TaughtItem => ({ ...row, id: Number(row.id) });

/** What a teach came to: the item, no such piece, or an account that holds as many as it may. */
export type TaughtOutcome = { item: TaughtItem } | 'no_piece' | 'full';

/** The SQL of schema `knowledge` for what the team taught, and nothing else. */
export class TaughtRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Teaches `input` under the account's write lock (the pieces' too, so the piece cannot go
   * meanwhile): a question taught before is replaced (a new id: it is the newest).
   */
  teach(accountId: string, input: TaughtInput): Promise<TaughtOutcome> {
    return this.db.transaction(async (manager): Promise<TaughtOutcome> => {
      await execute(manager, sql('knowledge_taught_teach')`SELECT pg_advisory_xact_lock(hashtext($1))`, [`knowledge:${accountId}`]);
      if (input.external_ref !== null) {
        const piece = await queryOne(
          manager,
          sql('knowledge_taught_teach_2')`SELECT 1 AS found FROM knowledge.pieces WHERE account_id = $1 AND external_ref = $2`,
          [accountId, input.external_ref],
        );
        if (!piece) return 'no_piece';
      }
      const held = await queryOne<{ n: number; known: boolean }>(
        manager,
        sql('knowledge_taught_teach_3')`
          SELECT count(*)::int AS n, coalesce(bool_or(question_key = $2), false) AS known FROM knowledge.taught WHERE account_id = $1`,
        [accountId, input.key],
      );
      if (held && !held.known && held.n >= TAUGHT_LIMITS.perAccount) return 'full';
      const row = await queryOne<Row>(
        manager,
        sql('knowledge_taught_teach_4')`INSERT INTO knowledge.taught (account_id, question, question_key, lang, external_ref, created_by)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id, question_key) DO UPDATE
           SET id = nextval(pg_get_serial_sequence('knowledge.taught', 'id')), question = EXCLUDED.question, lang = EXCLUDED.lang,
               external_ref = EXCLUDED.external_ref, created_by = EXCLUDED.created_by, created_at = now()
         RETURNING ${COLUMNS}`,
        [accountId, input.question, input.key, input.lang, input.external_ref, input.created_by],
      );
      return { item: item(row as Row) };
    });
  }

  /** The language most of the account's pieces are in, if it has any. */
  async mainLanguage(accountId: string): Promise<string | undefined> {
    const row = await queryOne<Columns<Pieces, 'lang'>>(
      this.db,
      sql('knowledge_taught_main_language')`
        SELECT lang FROM knowledge.pieces WHERE account_id = $1 GROUP BY lang ORDER BY count(*) DESC, lang LIMIT 1`,
      [accountId],
    );
    return row?.lang;
  }

  /** Up to `limit` of the account's taught questions, newest first, with ids below `before`. */
  async list(accountId: string, before: number | undefined, limit: number): Promise<TaughtItem[]> {
    const rows = await queryRows<Row>(
      this.db,
      sql('knowledge_taught_list')`
        SELECT ${COLUMNS} FROM knowledge.taught WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3`,
      [accountId, before ?? null, limit],
    );
    return rows.map(item);
  }

  /** True when the account had it. */
  async remove(accountId: string, id: number): Promise<boolean> {
    return (
      (await execute(this.db, sql('knowledge_taught_remove')`DELETE FROM knowledge.taught WHERE account_id = $1 AND id = $2`, [
        accountId,
        id,
      ])) > 0
    );
  }
}
