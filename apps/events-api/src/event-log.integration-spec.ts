import { DomainMessage, EventKind, sampleEventData } from '@svc/contracts';
import { classifyFailure, domainMessage, OutboxRelay } from '@svc/messaging';
import { createDataSource, migrate } from '@svc/persistence';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppendBatcher } from './append-batcher';
import { EventLog } from './event-log';
import { EVENTS_MIGRATIONS, EVENTS_SCHEMA } from './migrations';

describe('EventLog (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let log: EventLog;
  /** Counts the wake-ups of the (in-process) relay that publishes the outbox rows. */
  const relay = { wakes: 0, wake(): void { this.wakes += 1; } };

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createDataSource({ schema: EVENTS_SCHEMA, url: db.url, migrations: EVENTS_MIGRATIONS, poolSize: 8 }).initialize();
    await migrate(dataSource);
    log = new EventLog(dataSource, relay as unknown as OutboxRelay);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  const sample = (account: string, n: number) => domainMessage('message.sent', account, sampleEventData('message.sent', { n })) as DomainMessage<EventKind>;
  const ids = async (account: string) =>
    ((await dataSource.query('SELECT id, event_id FROM events.events WHERE account_id = $1 ORDER BY id', [account])) as Array<{ id: string; event_id: string }>).map((r) => ({
      id: Number(r.id),
      eventId: r.event_id,
    }));

  it('appends a batch in order with consecutive ids, and queues each recorded event for the dispatcher', async () => {
    const account = randomUUID();
    const batch = [1, 2, 3].map((n) => sample(account, n));
    expect(await log.append(account, batch)).toBe(3);
    expect(await ids(account)).toEqual(batch.map((m, i) => ({ id: i + 1, eventId: m.id })));
    const outbox: Array<{ body: { account_id: string; event_id: string; event: { id: number; event: string } } }> = await dataSource.query(
      'SELECT body FROM events.outbox WHERE id = ANY($1::uuid[]) ORDER BY seq',
      [batch.map((m) => m.id)],
    );
    expect(outbox.map((r) => [r.body.event_id, r.body.event.id, r.body.account_id, r.body.event.event])).toEqual(batch.map((m, i) => [m.id, i + 1, account, 'message.sent']));
  });

  it('ignores redelivered events, also inside one batch, without reusing an id', async () => {
    const account = randomUUID();
    const [a, b, c] = [1, 2, 3].map((n) => sample(account, n));
    const wakes = relay.wakes;
    expect(await log.append(account, [a!, b!])).toBe(2);
    expect(await log.append(account, [a!, c!, c!, b!])).toBe(1);
    expect(await log.append(account, [c!, a!])).toBe(0);
    // The relay is woken after each append that queued something, not for a batch of repeats.
    expect(relay.wakes - wakes).toBe(2);
    const stored = await ids(account);
    expect(stored.map((r) => r.eventId)).toEqual([a!.id, b!.id, c!.id]);
    expect(stored.map((r) => r.id)).toEqual([...stored.map((r) => r.id)].sort((x, y) => x - y));
    expect(new Set(stored.map((r) => r.id)).size).toBe(3);
  });

  it('gives concurrent appends of one account distinct increasing ids', async () => {
    const account = randomUUID();
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(account, [sample(account, 100 + i), sample(account, 200 + i)])));
    const stored = await ids(account);
    expect(stored).toHaveLength(40);
    expect(stored.map((r) => r.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('prunes events recorded before the retention period', async () => {
    const account = randomUUID();
    await log.append(account, [sample(account, 1), sample(account, 2)]);
    await dataSource.query(`UPDATE events.events SET recorded_at = now() - interval '31 days' WHERE account_id = $1 AND id = 1`, [account]);
    expect(await log.prune(30, 1_000_000)).toBeGreaterThanOrEqual(1);
    expect((await ids(account)).map((r) => r.id)).toEqual([2]);
  });

  it('a batch with one message the database refuses (an offset of +16:00 past an older validator) appends its neighbours; only that one fails, as permanent', async () => {
    const account = randomUUID();
    const batcher = new AppendBatcher(log);
    const [first, good1, good2] = [1, 2, 3].map((n) => sample(account, n));
    const bad = { ...sample(account, 4), at: '2026-11-21T10:04:05.123456+16:00' };
    // The first goes alone at once; the next three wait for it and go together.
    const results = [first!, good1!, bad, good2!].map((m) => batcher.append(m).then(() => 'appended', (err: unknown) => err));
    const [r0, r1, rBad, r2] = await Promise.all(results);
    expect([r0, r1, r2]).toEqual(['appended', 'appended', 'appended']);
    expect(classifyFailure(rBad)).toMatchObject({ kind: 'permanent' });
    expect((await ids(account)).map((r) => r.eventId)).toEqual([first!.id, good1!.id, good2!.id]);
  });
});
