import { DomainMessage, EventKind, sampleEventData } from '@svc/contracts';
import { domainMessage, enqueueDomainMessages, outboxMigration, outboxTraceMigration } from '@svc/messaging';
import { createDataSource, migrate, queryOne } from '@svc/persistence';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { REPO_ROOT, RunningProcess, waitForOutput } from './processes';

/** The schema of the (future) chat app, whose outbox real public events come from. */
export const PRODUCER_SCHEMA = 'chat';

/**
 * Stands in for the chat app, the source of public events: writes domain messages to its outbox in
 * a transaction, exactly as a producer does. Its relay runs as a separate process (`startRelay`) so
 * tests can kill it.
 */
export class TestProducer {
  private constructor(readonly db: DataSource) {}

  static async create(databaseUrl: string): Promise<TestProducer> {
    const db = await createDataSource({
      schema: PRODUCER_SCHEMA,
      url: databaseUrl,
      migrations: [outboxMigration(PRODUCER_SCHEMA), outboxTraceMigration(PRODUCER_SCHEMA, 1765000000000)],
      poolSize: 8,
    }).initialize();
    await migrate(db);
    return new TestProducer(db);
  }

  /** Commits one event of `kind` for the account (sample data, `n` makes it distinct); returns the message. */
  async emit(kind: EventKind, accountId: string, n = 1): Promise<DomainMessage> {
    const message = domainMessage(kind, accountId, sampleEventData(kind, { n }));
    await this.db.transaction((manager) => enqueueDomainMessages(manager, PRODUCER_SCHEMA, [message]));
    return message;
  }

  /** Commits several events in one transaction, as a busy producer does; returns the messages. */
  async emitMany(kind: EventKind, accountId: string, ns: number[]): Promise<DomainMessage[]> {
    const messages = ns.map((n) => domainMessage(kind, accountId, sampleEventData(kind, { n })));
    await this.db.transaction((manager) => enqueueDomainMessages(manager, PRODUCER_SCHEMA, messages));
    return messages;
  }

  /** Rows still waiting to be published (the relay deletes what it published). */
  async pending(): Promise<number> {
    const row = await queryOne<{ n: number }>(this.db, `SELECT count(*)::int AS n FROM ${PRODUCER_SCHEMA}.outbox`);
    return row?.n ?? 0;
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}

/** The producer's outbox relay as its own process (`dist/libs/testing/src/relay-main.js`). */
export async function startRelay(env: Record<string, string>): Promise<RunningProcess> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/libs/testing/src/relay-main.js')], {
    env: { PATH: process.env['PATH'] ?? '', OUTBOX_SCHEMA: PRODUCER_SCHEMA, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return waitForOutput(child, 'relay started', 20_000);
}
