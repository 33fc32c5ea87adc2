import { MigrationInterface, QueryRunner } from 'typeorm';

/** The languages an account's pieces are in, read by a loose index scan (a search ranks in those languages only). */
export class IndexPieceLanguages1764100000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX pieces_account_lang_idx ON knowledge.pieces (account_id, lang)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX knowledge.pieces_account_lang_idx');
  }
}
