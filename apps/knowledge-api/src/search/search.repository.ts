import { KnowledgeSearchResult } from '@svc/contracts';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { SEARCH_LANGUAGES, SearchLanguage } from './language';

/** The matching passage: up to two fragments of the text around the question's words, no markup. */
const HEADLINE_OPTIONS = 'MaxFragments=2, MaxWords=35, MinWords=15, StartSel="", StopSel="", FragmentDelimiter=" … "';

/** A question word and how many of the account's pieces hold it (0: none; perhaps misspelled). */
export interface QuestionTerm {
  word: string;
  pieces: number;
}

/** The question's words, and the languages the account's pieces are in (the ones a search ranks in). */
export interface QuestionTerms {
  terms: QuestionTerm[];
  languages: SearchLanguage[];
}

/**
 * The question's words (unaccented, lower case; stop words of the visitor's language left out)
 * with how many pieces hold each, from the vocabulary. A word no piece holds is probably
 * misspelled: its closest known word by trigram similarity (pg_trgm `%`, GIN index) is added.
 * Each row also carries the languages of the account's pieces (a loose scan of the index on
 * account and language: one probe per language), so that ranking plans only those.
 */
const TERMS_SQL = `
WITH RECURSIVE asked AS (
  SELECT w AS word, coalesce(v.pieces, 0) AS pieces
    FROM unnest(knowledge.words('', $2)) AS w
    LEFT JOIN knowledge.vocabulary v ON v.account_id = $1 AND v.word = w
   WHERE length(to_tsvector(knowledge.search_config($3), w)) > 0
), languages AS (
  (SELECT lang FROM knowledge.pieces WHERE account_id = $1 ORDER BY lang LIMIT 1)
  UNION ALL
  SELECT (SELECT p.lang FROM knowledge.pieces p WHERE p.account_id = $1 AND p.lang > l.lang ORDER BY p.lang LIMIT 1)
    FROM languages l WHERE l.lang IS NOT NULL
), terms AS (
  SELECT word, pieces FROM asked
  UNION
  SELECT c.word, c.pieces
    FROM asked a
    CROSS JOIN LATERAL (
      SELECT v.word, v.pieces FROM knowledge.vocabulary v
       WHERE a.pieces = 0 AND v.account_id = $1 AND v.word % a.word
       ORDER BY similarity(v.word, a.word) DESC, v.pieces DESC, v.word
       LIMIT 1) c
)
SELECT word, pieces, (SELECT array_agg(lang) FROM languages WHERE lang IS NOT NULL) AS languages FROM terms`;

/**
 * For each language pieces are indexed in, the question is stemmed in that language (a piece and
 * the question must be normalised alike to match): candidates are that language's pieces holding
 * one of the rare words ($3) or all the words ($2); any of the words ranks them (ts_rank_cd: cover
 * density, heading weighted above text). The words arrive as parameters so that PostgreSQL plans
 * the tsqueries as constants and reads the GIN index (account, language, vector).
 */
const branch = (lang: string) => `
  (SELECT p.external_ref, p.heading, p.url, p.text, p.lang, ts_rank_cd(p.search_vector, knowledge.any_of('${lang}', $2), 32) AS score
     FROM knowledge.pieces p
    WHERE p.account_id = $1 AND p.lang = '${lang}'
      AND p.search_vector @@ coalesce(knowledge.any_of('${lang}', $3) || plainto_tsquery(knowledge.search_config('${lang}'), $2),
                                      plainto_tsquery(knowledge.search_config('${lang}'), $2))
    ORDER BY score DESC, p.external_ref
    LIMIT $4)`;

/** The ranking SQL over the given languages' pieces (one branch each: PostgreSQL plans only those). */
const rankSql = (languages: readonly SearchLanguage[]): string => `
SELECT external_ref, heading, url, score,
       ts_headline(knowledge.search_config(lang), text, knowledge.any_of(lang, $2), '${HEADLINE_OPTIONS}') AS passage
  FROM (${languages.map(branch).join('\n  UNION ALL')}) AS matches
 ORDER BY score DESC, external_ref
 LIMIT $4`;

/** The search SQL of schema `knowledge`, and nothing else. */
export class SearchRepository {
  constructor(private readonly db: DataSource) {}

  /** The SQL of each set of languages met so far (at most 2^8 sets, in practice a few). */
  private readonly rankSqls = new Map<string, string>();

  async terms(accountId: string, question: string, language: SearchLanguage): Promise<QuestionTerms> {
    const rows = await queryRows<QuestionTerm & { languages: SearchLanguage[] | null }>(this.db, TERMS_SQL, [
      accountId,
      question,
      language,
    ]);
    return { terms: rows.map(({ word, pieces }) => ({ word, pieces })), languages: rows[0]?.languages ?? [] };
  }

  /** The best `limit` pieces in `languages` for `words`, candidates chosen by `rareWords` (or by holding every word when null). */
  async rank(
    accountId: string,
    languages: readonly SearchLanguage[],
    words: string[],
    rareWords: string[],
    limit: number,
  ): Promise<KnowledgeSearchResult[]> {
    const known = languages.filter((language) => SEARCH_LANGUAGES.includes(language)).sort();
    if (known.length === 0) return [];
    const key = known.join(',');
    let sql = this.rankSqls.get(key);
    if (sql === undefined) {
      sql = rankSql(known);
      this.rankSqls.set(key, sql);
    }
    const rows = await queryRows<KnowledgeSearchResult & { score: number | string }>(this.db, sql, [
      accountId,
      words.join(' '),
      rareWords.length > 0 ? rareWords.join(' ') : null,
      limit,
    ]);
    return rows.map((row) => ({
      external_ref: row.external_ref,
      heading: row.heading,
      url: row.url,
      passage: row.passage,
      score: Number(row.score),
    }));
  }
}
