import { MigrationInterface, QueryRunner } from 'typeorm';

/** The NOTIFY channel on which every change to `knowledge.pieces` is announced, with the account and the pieces' ids. */
export const PIECES_CHANGED_CHANNEL = 'knowledge_pieces_changed';

/** Ids per notification: a payload stays far below PostgreSQL's 8,000 bytes. */
const IDS_PER_NOTIFICATION = 400;

/**
 * Search moves into each replica's memory (`SearchIndex`): the tsvector column, its GIN index, the
 * vocabulary and their triggers and functions go. Every statement that inserts, updates or deletes
 * pieces notifies `knowledge_pieces_changed` with `{"a": account_id, "i": [piece ids]}` when it
 * commits, whoever ran it, so that every replica re-reads those pieces.
 */
export class SearchInMemory1763900000001 implements MigrationInterface {
  name = 'SearchInMemory1763900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const trigger of ['inserted', 'updated', 'deleted']) {
      await queryRunner.query(`DROP TRIGGER pieces_vocabulary_${trigger} ON knowledge.pieces`);
      await queryRunner.query(`DROP FUNCTION knowledge.vocabulary_${trigger}()`);
    }
    await queryRunner.query('DROP FUNCTION knowledge.vocabulary_shift, knowledge.words, knowledge.any_of');
    await queryRunner.query('DROP TYPE knowledge.word_count');
    await queryRunner.query('DROP TABLE knowledge.vocabulary');
    await queryRunner.query('ALTER TABLE knowledge.pieces DROP COLUMN search_vector');
    await queryRunner.query('DROP FUNCTION knowledge.search_config');
    for (const lang of ['english', 'german', 'french', 'spanish', 'italian', 'portuguese', 'dutch', 'simple']) {
      await queryRunner.query(`DROP TEXT SEARCH CONFIGURATION knowledge.${lang}_unaccent`);
    }

    await queryRunner.query(`
      CREATE FUNCTION knowledge.pieces_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${PIECES_CHANGED_CHANNEL}', json_build_object('a', account_id, 'i', json_agg(id ORDER BY id))::text)
           FROM (SELECT account_id, id, (row_number() OVER (PARTITION BY account_id ORDER BY id) - 1) / ${IDS_PER_NOTIFICATION} AS part
                   FROM changed_pieces) c
          GROUP BY account_id, part;
        RETURN NULL;
      END $$`);
    for (const [event, table] of [
      ['INSERT', 'NEW'],
      ['UPDATE', 'NEW'],
      ['DELETE', 'OLD'],
    ]) {
      await queryRunner.query(`CREATE TRIGGER pieces_changed_${event.toLowerCase()} AFTER ${event} ON knowledge.pieces
        REFERENCING ${table} TABLE AS changed_pieces FOR EACH STATEMENT EXECUTE FUNCTION knowledge.pieces_changed()`);
    }
  }

  async down(): Promise<void> {
    throw new Error('SearchInMemory1763900000001 cannot be reverted: the search index it dropped is rebuilt by the first migration only.');
  }
}
