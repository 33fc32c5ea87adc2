import { MigrationInterface, QueryRunner } from 'typeorm';

/** The stemming languages of the search; every other language is searched with `simple` (no stemming). */
const STEMMED = ['english', 'german', 'french', 'spanish', 'italian', 'portuguese', 'dutch'];

/**
 * Knowledge pieces and their search index, kept by PostgreSQL in the same transaction as the piece:
 * - `search_vector`, a generated column: heading (weight A) and text (weight B) in the text search
 *   configuration of the piece's language (`lang`, detected from its words when it is written).
 *   Each configuration removes accents (unaccent) before stemming, so "Rückgabe" matches "Ruckgabe".
 * - `vocabulary`: the account's distinct words (unaccented, not stemmed) with the number of pieces
 *   holding each, kept by statement triggers. It corrects misspelled question words (pg_trgm) and
 *   tells which question words are rare, to pick the candidates a search ranks.
 */
export class CreateKnowledgePieces1763900000000 implements MigrationInterface {
  name = 'CreateKnowledgePieces1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Contrib extensions, trusted since PostgreSQL 13 (a database owner may create them). One per database.
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public');
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');
    // GIN indexes that start with account_id, so a search reads only the caller's pieces.
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public');

    for (const lang of [...STEMMED, 'simple']) {
      const dictionary = lang === 'simple' ? 'pg_catalog.simple' : `pg_catalog.${lang}_stem`;
      await queryRunner.query(`CREATE TEXT SEARCH CONFIGURATION knowledge.${lang}_unaccent (COPY = pg_catalog.${lang})`);
      await queryRunner.query(
        `ALTER TEXT SEARCH CONFIGURATION knowledge.${lang}_unaccent ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, ${dictionary}`,
      );
    }
    // Declared immutable (the configurations it names never change) so that a generated column may use it.
    await queryRunner.query(`
      CREATE FUNCTION knowledge.search_config(lang text) RETURNS regconfig
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN ('knowledge.' || lang || '_unaccent')::regconfig`);

    await queryRunner.query(`
      CREATE TABLE knowledge.pieces (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL,
        external_ref text COLLATE "C" NOT NULL CHECK (char_length(external_ref) BETWEEN 1 AND 255),
        heading text NOT NULL CHECK (char_length(heading) BETWEEN 1 AND 300),
        text text NOT NULL CHECK (char_length(text) BETWEEN 15 AND 8000),
        url text CHECK (char_length(url) <= 2048),
        lang text NOT NULL CHECK (lang IN (${[...STEMMED, 'simple'].map((l) => `'${l}'`).join(', ')})),
        search_vector tsvector NOT NULL GENERATED ALWAYS AS (
          setweight(to_tsvector(knowledge.search_config(lang), heading), 'A') ||
          setweight(to_tsvector(knowledge.search_config(lang), text), 'B')
        ) STORED,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, external_ref)
      )`);
    // fastupdate off: a search right after a bulk load must not scan a long pending list.
    await queryRunner.query(
      'CREATE INDEX pieces_search_idx ON knowledge.pieces USING gin (account_id, lang, search_vector) WITH (fastupdate = off)',
    );

    await queryRunner.query(`
      CREATE TABLE knowledge.vocabulary (
        account_id uuid NOT NULL,
        word text COLLATE "C" NOT NULL,
        pieces integer NOT NULL,
        PRIMARY KEY (account_id, word)
      ) WITH (fillfactor = 80)`);
    await queryRunner.query(
      'CREATE INDEX vocabulary_trgm_idx ON knowledge.vocabulary USING gin (account_id, word gin_trgm_ops) WITH (fastupdate = off)',
    );

    // The words a piece contributes to the vocabulary: distinct, unaccented, lower case, 3 to 64 characters.
    await queryRunner.query(`
      CREATE FUNCTION knowledge.words(heading text, body text) RETURNS text[]
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN ARRAY(SELECT w FROM unnest(tsvector_to_array(to_tsvector('knowledge.simple_unaccent', heading || ' ' || body))) AS w
                      WHERE char_length(w) BETWEEN 3 AND 64)`);
    await queryRunner.query('CREATE TYPE knowledge.word_count AS (account_id uuid, word text, n integer)');
    // Adds each change (+1 per new piece holding a word, -1 per old one) and drops words no piece holds.
    await queryRunner.query(`
      CREATE FUNCTION knowledge.vocabulary_shift(changes knowledge.word_count[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO knowledge.vocabulary AS v (account_id, word, pieces)
        SELECT account_id, word, sum(n) FROM unnest(changes) GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
        ON CONFLICT (account_id, word) DO UPDATE SET pieces = v.pieces + EXCLUDED.pieces;
        DELETE FROM knowledge.vocabulary v USING unnest(changes) c
         WHERE c.n < 0 AND v.account_id = c.account_id AND v.word = c.word AND v.pieces <= 0;
      $$`);
    const counted = (table: string, n: number) =>
      `SELECT (p.account_id, w, ${n})::knowledge.word_count FROM ${table} p, unnest(knowledge.words(p.heading, p.text)) AS w`;
    await queryRunner.query(`
      CREATE FUNCTION knowledge.vocabulary_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM knowledge.vocabulary_shift(ARRAY(${counted('new_pieces', 1)}));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION knowledge.vocabulary_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM knowledge.vocabulary_shift(ARRAY(${counted('new_pieces', 1)} UNION ALL ${counted('old_pieces', -1)}));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION knowledge.vocabulary_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM knowledge.vocabulary_shift(ARRAY(${counted('old_pieces', -1)}));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER pieces_vocabulary_inserted AFTER INSERT ON knowledge.pieces
      REFERENCING NEW TABLE AS new_pieces FOR EACH STATEMENT EXECUTE FUNCTION knowledge.vocabulary_inserted()`);
    await queryRunner.query(`CREATE TRIGGER pieces_vocabulary_updated AFTER UPDATE ON knowledge.pieces
      REFERENCING OLD TABLE AS old_pieces NEW TABLE AS new_pieces FOR EACH STATEMENT EXECUTE FUNCTION knowledge.vocabulary_updated()`);
    await queryRunner.query(`CREATE TRIGGER pieces_vocabulary_deleted AFTER DELETE ON knowledge.pieces
      REFERENCING OLD TABLE AS old_pieces FOR EACH STATEMENT EXECUTE FUNCTION knowledge.vocabulary_deleted()`);

    // A question's words as an OR query (plainto_tsquery ANDs them): a piece need not hold every word.
    await queryRunner.query(`
      CREATE FUNCTION knowledge.any_of(lang text, words text) RETURNS tsquery
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN (SELECT CASE WHEN numnode(q) = 0 THEN q ELSE replace(q::text, ' & ', ' | ')::tsquery END
                  FROM plainto_tsquery(knowledge.search_config(lang), words) AS q)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE knowledge.pieces');
    await queryRunner.query('DROP TABLE knowledge.vocabulary');
    await queryRunner.query(
      'DROP FUNCTION knowledge.any_of, knowledge.vocabulary_inserted, knowledge.vocabulary_updated, knowledge.vocabulary_deleted',
    );
    await queryRunner.query('DROP FUNCTION knowledge.vocabulary_shift, knowledge.words, knowledge.search_config');
    await queryRunner.query('DROP TYPE knowledge.word_count');
    for (const lang of [...STEMMED, 'simple']) await queryRunner.query(`DROP TEXT SEARCH CONFIGURATION knowledge.${lang}_unaccent`);
  }
}
