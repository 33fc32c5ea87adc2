import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each account's public widget id (`wgt_` + 32 hex digits from a random UUID: 122 random bits),
 * the `widget` of /whoami and of the embed. Existing accounts get one each (the default is
 * volatile, so PostgreSQL computes it per row).
 */
export class AddWidgetIds1764000000000 implements MigrationInterface {
  name = 'AddWidgetIds1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE gateway.accounts ADD COLUMN widget_id text NOT NULL DEFAULT ('wgt_' || replace(gen_random_uuid()::text, '-', ''))`,
    );
    await queryRunner.query(`ALTER TABLE gateway.accounts ADD CONSTRAINT accounts_widget_id_key UNIQUE (widget_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE gateway.accounts DROP COLUMN widget_id`);
  }
}
