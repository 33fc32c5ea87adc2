import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The analytics' record of what contacts-api reported for the account's customers
 * (`contact.confirmed`, `consent.granted`, `consent.withdrawn`, consumed from the domain exchange):
 * the kind, the channel or purpose and when; no personal data. One row per producer event id, so a
 * redelivery counts once. Also the heading of the piece a customer's booking is for (the words
 * told to them).
 */
export class CreateContactActivity1764000000003 implements MigrationInterface {
  name = 'CreateContactActivity1764000000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat.contact_activity (
        event_id uuid PRIMARY KEY, account_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('contact.confirmed', 'consent.granted', 'consent.withdrawn')),
        detail text NOT NULL,
        at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX contact_activity_account_at_idx ON chat.contact_activity (account_id, at)`);
    await queryRunner.query(`ALTER TABLE chat.bookings ADD COLUMN listing_heading text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chat.bookings DROP COLUMN listing_heading`);
    await queryRunner.query(`DROP TABLE chat.contact_activity`);
  }
}
