import { randomUUID } from 'node:crypto';
import type { DomainDataByKind, DomainKind, DomainMessage } from '@svc/contracts';
import { execute, nowTimestamp, Queryable } from '@svc/persistence';
import { currentTraceparent } from '@svc/tracing';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { DOMAIN_EXCHANGE } from './topology';

/** A message waiting in a schema's outbox: published to `exchange` with `routingKey`. */
export interface OutboxMessage {
  id: string;
  exchange: string;
  routingKey: string;
  body: unknown;
  /** The W3C `traceparent` of the work that caused it (the active span's when enqueued, unless given). */
  traceparent?: string | null;
}

/** The NOTIFY channel the relay of `schema` listens on. */
export function outboxChannel(schema: string): string {
  return `outbox_${schema}`;
}

/** The migration that gives `schema` its outbox; `timestamp` orders it among the app's migrations. */
export function outboxMigration(schema: string, timestamp = 1763800000000): new () => MigrationInterface {
  const name = `CreateOutbox${timestamp}`;
  return class implements MigrationInterface {
    name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      await execute(
        queryRunner,
        `
        CREATE TABLE "${schema}".outbox (
          seq bigserial PRIMARY KEY,
          id uuid NOT NULL UNIQUE,
          exchange text NOT NULL,
          routing_key text NOT NULL,
          body jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          sent_at timestamptz
        )`,
      );
      await execute(queryRunner, `CREATE INDEX outbox_pending_idx ON "${schema}".outbox (seq) WHERE sent_at IS NULL`);
      await execute(queryRunner, `CREATE INDEX outbox_sent_idx ON "${schema}".outbox (sent_at) WHERE sent_at IS NOT NULL`);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await execute(queryRunner, `DROP TABLE "${schema}".outbox`);
    }
  };
}

/**
 * The migration that keeps, with each outbox row, the trace of the work that wrote it: the relay
 * publishes the message as part of that trace (docs/operations.md, "Traces").
 */
export function outboxTraceMigration(schema: string, timestamp: number): new () => MigrationInterface {
  return class implements MigrationInterface {
    name = `OutboxTraceparent${timestamp}`;

    async up(queryRunner: QueryRunner): Promise<void> {
      await execute(queryRunner, `ALTER TABLE "${schema}".outbox ADD COLUMN traceparent text`);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await execute(queryRunner, `ALTER TABLE "${schema}".outbox DROP COLUMN traceparent`);
    }
  };
}

/** The start of an INSERT of outbox rows of `schema`: `SELECT id, exchange, routing_key, body, traceparent …` follows. */
export function outboxInsert(schema: string): string {
  return `INSERT INTO "${schema}".outbox (id, exchange, routing_key, body, traceparent)`;
}

/** Adds messages in the caller's transaction and NOTIFYs the relay on commit. See docs/adr/001-outbox-relay-notify.md */
export async function enqueue(db: Queryable, schema: string, messages: readonly OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const traceparent = currentTraceparent();
  await execute(
    db,
    {
      // See docs/adr/003-named-prepared-statements.md
      name: `${schema}_outbox_enqueue`,
      text: `WITH added AS (
               ${outboxInsert(schema)}
               SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $6::text[])
               ON CONFLICT (id) DO NOTHING
             )
             SELECT pg_notify($5, '')`,
    },
    [
      messages.map((m) => m.id),
      messages.map((m) => m.exchange),
      messages.map((m) => m.routingKey),
      messages.map((m) => JSON.stringify(m.body)),
      outboxChannel(schema),
      messages.map((m) => m.traceparent ?? traceparent ?? null),
    ],
  );
}

/** A domain message with a fresh id, ready for `enqueueDomainMessages`. */
export function domainMessage<K extends DomainKind>(kind: K, accountId: string, data: DomainDataByKind[K]): DomainMessage<K> {
  return { id: randomUUID(), kind, account_id: accountId, at: nowTimestamp(), data } as DomainMessage<K>;
}

/** Enqueues domain messages on the domain exchange, each routed by its kind. */
export async function enqueueDomainMessages(db: Queryable, schema: string, messages: readonly DomainMessage[]): Promise<void> {
  await enqueue(
    db,
    schema,
    messages.map((message) => ({ id: message.id, exchange: DOMAIN_EXCHANGE, routingKey: message.kind, body: message })),
  );
}
