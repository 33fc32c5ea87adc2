import { DomainMessage, eraseEventData, EventKind, sampleEventData } from '@svc/contracts';
import { classifyFailure, domainMessage, OutboxRelay } from '@svc/messaging';
import { execute, queryRows } from '@svc/persistence';
import { suiteSchemaDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { AppendBatcher } from './append-batcher';
import { EventsRepository } from './events.repository';
import { EVENTS_MIGRATIONS, EVENTS_SCHEMA } from './migrations';

describe('EventsRepository (real PostgreSQL)', () => {
  const db = suiteSchemaDatabase({ schema: EVENTS_SCHEMA, migrations: EVENTS_MIGRATIONS, poolSize: 8 });
  let log: EventsRepository;
  /** Counts the wake-ups of the (in-process) relay that publishes the outbox rows. */
  const relay = {
    wakes: 0,
    wake(): void {
      this.wakes += 1;
    },
  };

  beforeAll(() => {
    log = new EventsRepository(db.dataSource, relay as unknown as OutboxRelay);
  });

  const sample = (account: string, n: number) =>
    domainMessage('message.sent', account, sampleEventData('message.sent', { n })) as DomainMessage<EventKind>;
  const ids = async (account: string) =>
    (
      await queryRows<{ id: string; event_id: string }>(
        db.dataSource,
        'SELECT id, event_id FROM events.events WHERE account_id = $1 ORDER BY id',
        [account],
      )
    ).map((r) => ({
      id: Number(r.id),
      eventId: r.event_id,
    }));

  it('appends a batch in order with consecutive ids, and queues each recorded event for the dispatcher', async () => {
    const account = randomUUID();
    const batch = [1, 2, 3].map((n) => sample(account, n));
    expect(await log.append(account, batch)).toBe(3);
    expect(await ids(account)).toEqual(batch.map((m, i) => ({ id: i + 1, eventId: m.id })));
    const outbox = await queryRows<{ body: { account_id: string; event_id: string; event: { id: number; event: string } } }>(
      db.dataSource,
      'SELECT body FROM events.outbox WHERE id = ANY($1::uuid[]) ORDER BY seq',
      [batch.map((m) => m.id)],
    );
    expect(outbox.map((r) => [r.body.event_id, r.body.event.id, r.body.account_id, r.body.event.event])).toEqual(
      batch.map((m, i) => [m.id, i + 1, account, 'message.sent']),
    );
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
    await execute(db.dataSource, `UPDATE events.events SET recorded_at = now() - interval '31 days' WHERE account_id = $1 AND id = 1`, [
      account,
    ]);
    expect(await log.prune(30, 1_000_000)).toBeGreaterThanOrEqual(1);
    expect((await ids(account)).map((r) => r.id)).toEqual([2]);
  });

  it('a batch with one message the database refuses (an offset of +16:00 past an older validator) appends its neighbours; only that one fails, as permanent', async () => {
    const account = randomUUID();
    const batcher = new AppendBatcher(log);
    const [first, good1, good2] = [1, 2, 3].map((n) => sample(account, n));
    const bad = { ...sample(account, 4), at: '2026-11-21T10:04:05.123456+16:00' };
    // The first goes alone at once; the next three wait for it and go together.
    const results = [first!, good1!, bad, good2!].map((m) =>
      batcher.append(m).then(
        () => 'appended',
        (err: unknown) => err,
      ),
    );
    const [r0, r1, rBad, r2] = await Promise.all(results);
    expect([r0, r1, r2]).toEqual(['appended', 'appended', 'appended']);
    expect(classifyFailure(rBad)).toMatchObject({ kind: 'permanent' });
    expect((await ids(account)).map((r) => r.eventId)).toEqual([first!.id, good1!.id, good2!.id]);
  });

  describe('erasure', () => {
    const handover = (account: string, n: number) =>
      domainMessage('handover.created', account, sampleEventData('handover.created', { n })) as DomainMessage<EventKind>;
    const stored = async (account: string) =>
      queryRows<{ svc_id: string; data: unknown }>(
        db.dataSource,
        `SELECT data -> 'contact' ->> 'svc_id' AS svc_id, data FROM events.events WHERE account_id = $1 ORDER BY id`,
        [account],
      );
    const queued = async (account: string): Promise<unknown[]> =>
      (
        await queryRows<{ body: { event: { data: unknown } } }>(
          db.dataSource,
          `SELECT body FROM events.outbox WHERE body ->> 'account_id' = $1 ORDER BY seq`,
          [account],
        )
      ).map((r) => r.body.event.data);

    it("blanks the customer's retained events and unpublished outbox rows exactly as eraseEventData does, and no one else's", async () => {
      const account = randomUUID();
      const [mine, theirs] = [handover(account, 1), handover(account, 2)];
      await log.append(account, [mine, theirs]);
      expect(await log.eraseContact(account, 1001)).toBe(1);
      const [erased, kept] = await stored(account);
      expect(erased!.data).toEqual(eraseEventData(mine.data));
      expect(JSON.stringify(erased!.data)).not.toMatch(/Ada|ada@example\.com|\+447700900123/);
      expect(kept!.data).toEqual(theirs.data);
      // Still waiting in the outbox (the test relay publishes nothing): blanked there too.
      expect(await queued(account)).toEqual([eraseEventData(mine.data), theirs.data]);
      // Idempotent: a redelivered erasure changes nothing more.
      expect(await log.eraseContact(account, 1001)).toBe(0);
    });

    it('appends an event of an erased customer (late or redelivered) blanked, in the feed and in the outbox', async () => {
      const account = randomUUID();
      await log.eraseContact(account, 1005);
      const late = handover(account, 5);
      const other = handover(account, 6);
      expect(await log.append(account, [late, other])).toBe(2);
      const [blank, untouched] = await stored(account);
      expect(blank!.data).toEqual(eraseEventData(late.data));
      expect(untouched!.data).toEqual(other.data);
      expect(await queued(account)).toEqual([eraseEventData(late.data), other.data]);
      // Another account's customer with the same svc_id is not erased.
      const elsewhere = randomUUID();
      const theirs = handover(elsewhere, 5);
      await log.append(elsewhere, [theirs]);
      expect((await stored(elsewhere))[0]!.data).toEqual(theirs.data);
    });

    it('looks again after its commit: an event of a customer whose erasure it did not see is blanked, on a redelivery too', async () => {
      const account = randomUUID();
      const event = handover(account, 7);
      await log.append(account, [event]);
      // An erasure that committed while the append ran, and whose own blanking came before the append's commit.
      await execute(db.dataSource, 'INSERT INTO events.erased_contacts (account_id, svc_id) VALUES ($1, 1007)', [account]);
      expect(await log.append(account, [event])).toBe(0);
      expect((await stored(account))[0]!.data).toEqual(eraseEventData(event.data));
    });

    it('keeps only account ids and svc_ids as the record of erased customers', async () => {
      const columns = await queryRows<{ column_name: string }>(
        db.dataSource,
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'events' AND table_name = 'erased_contacts' ORDER BY ordinal_position`,
      );
      expect(columns.map((c) => c.column_name)).toEqual(['account_id', 'svc_id', 'erased_at']);
    });
  });
});
