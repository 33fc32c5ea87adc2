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

/**
 * The question's words (unaccented, lower case; stop words of the visitor's language left out)
 * with how many pieces hold each, from the vocabulary. A word no piece holds is probably
 * misspelled: its closest known word by trigram similarity (pg_trgm `%`, GIN index) is added.
 */
const TERMS_SQL = `
WITH asked AS (
  SELECT w AS word, coalesce(v.pieces, 0) AS pieces
    FROM unnest(knowledge.words('', $2)) AS w
    LEFT JOIN knowledge.vocabulary v ON v.account_id = $1 AND v.word = w
   WHERE length(to_tsvector(knowledge.search_config($3), w)) > 0
)
SELECT word, pieces FROM asked
UNION
SELECT c.word, c.pieces
  FROM asked a
  CROSS JOIN LATERAL (
    SELECT v.word, v.pieces FROM knowledge.vocabulary v
     WHERE a.pieces = 0 AND v.account_id = $1 AND v.word % a.word
     ORDER BY similarity(v.word, a.word) DESC, v.pieces DESC, v.word
     LIMIT 1) c`;

/**
 * For each search language, the question is stemmed in that language (a piece and the question
 * must be normalised alike to match): candidates are that language's pieces holding one of the
 * rare words ($3) or all the words ($2); any of the words ranks them (ts_rank_cd: cover density,
 * heading weighted above text); the best of every language make the answer. The tsqueries are made
 * once per language (the MATERIALIZED CTE) and reach the GIN index (account, language, vector) as
 * the parameters of a lateral scan, so one plan serves every question: a named prepared statement
 * whose generic plan PostgreSQL keeps, instead of planning eight language branches per search.
 */
const RANK_SQL = `
WITH q AS MATERIALIZED (
  SELECT l.lang, knowledge.any_of(l.lang, $2) AS ranked,
         coalesce(knowledge.any_of(l.lang, $3) || plainto_tsquery(knowledge.search_config(l.lang), $2),
                  plainto_tsquery(knowledge.search_config(l.lang), $2)) AS wanted
    FROM unnest('{${SEARCH_LANGUAGES.join(',')}}'::text[]) AS l (lang)
)
SELECT m.external_ref, m.heading, m.url, m.score,
       ts_headline(knowledge.search_config(q.lang), m.text, q.ranked, '${HEADLINE_OPTIONS}') AS passage
  FROM q
 CROSS JOIN LATERAL (
   SELECT p.external_ref, p.heading, p.url, p.text, ts_rank_cd(p.search_vector, q.ranked, 32) AS score
     FROM knowledge.pieces p
    WHERE p.account_id = $1 AND p.lang = q.lang AND p.search_vector @@ q.wanted
    ORDER BY score DESC, p.external_ref
    LIMIT $4) m
 ORDER BY m.score DESC, m.external_ref
 LIMIT $4`;

/**
 * The search SQL of schema `knowledge`, and nothing else. Both statements run on every search:
 * named prepared statements, planned once per connection.
 */
export class SearchRepository {
  constructor(private readonly db: DataSource) {}

  terms(accountId: string, question: string, language: SearchLanguage): Promise<QuestionTerm[]> {
    return queryRows<QuestionTerm>(this.db, { name: 'knowledge_terms', text: TERMS_SQL }, [accountId, question, language]);
  }

  /** The best `limit` pieces for `words`, candidates chosen by `rareWords` (or by holding every word when null). */
  async rank(accountId: string, words: string[], rareWords: string[], limit: number): Promise<KnowledgeSearchResult[]> {
    const rows = await queryRows<KnowledgeSearchResult & { score: number | string }>(this.db, { name: 'knowledge_rank', text: RANK_SQL }, [
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
