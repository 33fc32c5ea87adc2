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

const RANK_SQL = `
SELECT external_ref, heading, url, score,
       ts_headline(knowledge.search_config(lang), text, knowledge.any_of(lang, $2), '${HEADLINE_OPTIONS}') AS passage
  FROM (${SEARCH_LANGUAGES.map(branch).join('\n  UNION ALL')}) AS matches
 ORDER BY score DESC, external_ref
 LIMIT $4`;

/** The search SQL of schema `knowledge`, and nothing else. */
export class SearchRepository {
  constructor(private readonly db: DataSource) {}

  terms(accountId: string, question: string, language: SearchLanguage): Promise<QuestionTerm[]> {
    return queryRows<QuestionTerm>(this.db, TERMS_SQL, [accountId, question, language]);
  }

  /** The best `limit` pieces for `words`, candidates chosen by `rareWords` (or by holding every word when null). */
  async rank(accountId: string, words: string[], rareWords: string[], limit: number): Promise<KnowledgeSearchResult[]> {
    const rows = await queryRows<KnowledgeSearchResult & { score: number | string }>(this.db, RANK_SQL, [
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
