import { randomUUID } from 'node:crypto';
import type { DomainDataByKind, DomainKind, DomainMessage } from '@svc/contracts';
import { nowTimestamp } from '@svc/persistence';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { DOMAIN_EXCHANGE } from './topology';

/** Anything that runs SQL in the caller's transaction: a TypeORM EntityManager or QueryRunner. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** A message waiting in a schema's outbox: published to `exchange` with `routingKey`. */
export interface OutboxMessage {
  id: string;
  exchange: string;
  routingKey: string;
  body: unknown;
}

/** The NOTIFY channel the relay of `schema` listens on. */
export function outboxChannel(schema: string): string {
  return `outbox_${schema}`;
}

/**
 * The migration that gives a service schema its outbox. Include it in the app's migration list;
 * the timestamp orders it among the app's own migrations.
 */
export function outboxMigration(schema: string, timestamp = 1763800000000): new () => MigrationInterface {
  const name = `CreateOutbox${timestamp}`;
  return class implements MigrationInterface {
    name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`
        CREATE TABLE "${schema}".outbox (
          seq bigserial PRIMARY KEY,
          id uuid NOT NULL UNIQUE,
          exchange text NOT NULL,
          routing_key text NOT NULL,
          body jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          sent_at timestamptz
        )`);
      await queryRunner.query(`CREATE INDEX outbox_pending_idx ON "${schema}".outbox (seq) WHERE sent_at IS NULL`);
      await queryRunner.query(`CREATE INDEX outbox_sent_idx ON "${schema}".outbox (sent_at) WHERE sent_at IS NOT NULL`);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`DROP TABLE "${schema}".outbox`);
    }
  };
}

/**
 * Adds a message to `schema`'s outbox in the caller's transaction and wakes the relay when that
 * transaction commits. Call it with the EntityManager or QueryRunner that writes the change itself:
 * the change and the message commit together or not at all.
 */
export async function enqueue(db: Queryable, schema: string, message: OutboxMessage): Promise<void> {
  await db.query(
    `INSERT INTO "${schema}".outbox (id, exchange, routing_key, body) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO NOTHING`,
    [message.id, message.exchange, message.routingKey, JSON.stringify(message.body)],
  );
  await db.query('SELECT pg_notify($1, $2)', [outboxChannel(schema), '']);
}

/** A domain message with a fresh id, ready for `enqueueDomainMessage`. */
export function domainMessage<K extends DomainKind>(kind: K, accountId: string, data: DomainDataByKind[K]): DomainMessage<K> {
  return { id: randomUUID(), kind, account_id: accountId, at: nowTimestamp(), data } as DomainMessage<K>;
}

/** Enqueues a domain message on the domain exchange, routed by its kind. */
export async function enqueueDomainMessage(db: Queryable, schema: string, message: DomainMessage): Promise<void> {
  await enqueue(db, schema, { id: message.id, exchange: DOMAIN_EXCHANGE, routingKey: message.kind, body: message });
}
