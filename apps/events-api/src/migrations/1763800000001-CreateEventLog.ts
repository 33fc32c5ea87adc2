import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateEventLog1763800000001 implements MigrationInterface {
  name = 'CreateEventLog1763800000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The last id given per account: its row lock serializes an account's appends, so ids become
    // visible in increasing order.
    await queryRunner.query(`
      CREATE TABLE events.account_sequences (
        account_id uuid PRIMARY KEY,
        last_id bigint NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE events.events (
        account_id uuid NOT NULL,
        id bigint NOT NULL,
        event_id uuid NOT NULL UNIQUE,
        kind text NOT NULL,
        at timestamptz NOT NULL,
        data jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, id)
      )`);
    await queryRunner.query(`CREATE INDEX events_recorded_at_idx ON events.events (recorded_at)`);
    await queryRunner.query(`CREATE INDEX events_contact_idx ON events.events (account_id, ((data -> 'contact' ->> 'svc_id')))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE events.events`);
    await queryRunner.query(`DROP TABLE events.account_sequences`);
  }
}
