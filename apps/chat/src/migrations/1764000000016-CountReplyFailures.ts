import { MigrationInterface, QueryRunner } from 'typeorm';

/** The failed tries of the assistant's answer to a customer message: after ASSISTANT_REPLY_TRIES it says it could not answer. */
export class CountReplyFailures1764000000016 implements MigrationInterface {
  name = 'CountReplyFailures1764000000016';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE chat.messages ADD COLUMN reply_failures smallint NOT NULL DEFAULT 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE chat.messages DROP COLUMN reply_failures');
  }
}
