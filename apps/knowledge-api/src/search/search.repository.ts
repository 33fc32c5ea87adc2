import { KnowledgeSearchResult } from '@svc/contracts';
import { DataSource } from 'typeorm';
import { SEARCH_LANGUAGES, SearchLanguage } from './language';

/**
 * How many pieces, at most, the rarest question words may select for ranking. Words found in most
 * pieces ("shipping" in a shop) still count in the ranking, but selecting every piece that holds
 * them would make a search read the whole account.
 */
const CANDIDATE_BUDGET = 500;

/** The matching passage: up to two fragments of the text around the question's words, no markup. */
const HEADLINE_OPTIONS = 'MaxFragments=2, MaxWords=35, MinWords=15, StartSel="", StopSel="", FragmentDelimiter=" … "';

/**
 * One statement, one round trip:
 * 1. `asked`: the question's words (unaccented, lower case; stop words of the visitor's language
 *    left out) and how many of the account's pieces hold each (the vocabulary).
 * 2. `corrected`: a word no piece holds is probably misspelled: its closest known word by trigram
 *    similarity (pg_trgm `%`, GIN index) joins the question.
 * 3. `picked`: candidates are the pieces holding one of the rarest words (within the budget) or
 *    every word; all words rank them.
 * 4. For each language pieces are indexed in, the question is stemmed in that language (a piece
 *    and the question must be normalised alike to match), then ranked with ts_rank_cd (cover
 *    density, heading weighted above text), best first, with the passage from ts_headline.
 */
const SEARCH_SQL = `
WITH asked AS (
  SELECT w AS word, coalesce(v.pieces, 0) AS pieces
    FROM unnest(knowledge.words('', $2)) AS w
    LEFT JOIN knowledge.vocabulary v ON v.account_id = $1 AND v.word = w
   WHERE numnode(plainto_tsquery(knowledge.search_config($3), w)) > 0
), corrected AS (
  SELECT c.word, c.pieces
    FROM asked a
    CROSS JOIN LATERAL (
      SELECT v.word, v.pieces FROM knowledge.vocabulary v
       WHERE a.pieces = 0 AND v.account_id = $1 AND v.word % a.word
       ORDER BY similarity(v.word, a.word) DESC, v.pieces DESC, v.word
       LIMIT 1) c
), terms AS (
  SELECT word, pieces FROM asked UNION SELECT word, pieces FROM corrected
), picked AS (
  SELECT string_agg(word, ' ') AS all_words, string_agg(word, ' ') FILTER (WHERE running <= $5) AS rare_words
    FROM (SELECT word, sum(pieces) OVER (ORDER BY pieces, word) AS running FROM terms) t
), queries AS MATERIALIZED (
  SELECT l.lang,
         knowledge.any_of(l.lang, all_words) AS ranking,
         coalesce(knowledge.any_of(l.lang, rare_words) || plainto_tsquery(knowledge.search_config(l.lang), all_words),
                  plainto_tsquery(knowledge.search_config(l.lang), all_words)) AS candidates
    FROM picked, unnest($6::text[]) AS l(lang)
), matches AS (
  SELECT p.external_ref, p.heading, p.url, p.text, p.lang, q.ranking, ts_rank_cd(p.search_vector, q.ranking, 32) AS score
    FROM queries q
    JOIN knowledge.pieces p ON p.account_id = $1 AND p.lang = q.lang AND p.search_vector @@ q.candidates
   ORDER BY score DESC, p.external_ref
   LIMIT $4
)
SELECT external_ref, heading, url, score,
       ts_headline(knowledge.search_config(lang), text, ranking, '${HEADLINE_OPTIONS}') AS passage
  FROM matches
 ORDER BY score DESC, external_ref`;

/** The search SQL of schema `knowledge`, and nothing else. */
export class SearchRepository {
  constructor(private readonly db: DataSource) {}

  async search(accountId: string, question: string, language: SearchLanguage, limit: number): Promise<KnowledgeSearchResult[]> {
    const rows: Array<KnowledgeSearchResult & { score: number | string }> = await this.db.query(SEARCH_SQL, [
      accountId,
      question,
      language,
      limit,
      CANDIDATE_BUDGET,
      SEARCH_LANGUAGES,
    ]);
    return rows.map((row) => ({ external_ref: row.external_ref, heading: row.heading, url: row.url, passage: row.passage, score: Number(row.score) }));
  }
}
