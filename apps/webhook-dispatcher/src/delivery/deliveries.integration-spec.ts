import { eraseEventData, PublicEvent, RecordedEvent, sampleEventData } from '@svc/contracts';
import { execute, listen, queryRows } from '@svc/persistence';
import { suiteSchemaDatabase } from '@svc/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { EndpointsRepository } from '../endpoints/endpoints.repository';
import { WEBHOOKS_MIGRATIONS, WEBHOOKS_SCHEMA } from '../migrations';
import { SecretBox } from '../security/secret-box';
import { ClaimedDelivery, DeliveriesRepository, DELIVERIES_CHANNEL } from './deliveries.repository';
import { DeliveryService } from './delivery.service';
import { InvalidRecordedEventError } from './recorded-event';

describe('deliveries (real PostgreSQL)', () => {
  const db = suiteSchemaDatabase({ schema: WEBHOOKS_SCHEMA, migrations: WEBHOOKS_MIGRATIONS, poolSize: 6 });
  let endpoints: EndpointsRepository;
  let deliveries: DeliveriesRepository;
  let service: DeliveryService;
  const box = new SecretBox(randomBytes(32).toString('hex'));
  let nextEventId = 1;

  const recorded = (accountId: string, event = 'message.received', id = nextEventId++): RecordedEvent =>
    ({
      account_id: accountId,
      event_id: randomUUID(),
      event: {
        id,
        event,
        at: '2026-11-21T10:04:05.123456+00:00',
        data: { contact: { ref: 'c-1', name: 'Zoë' }, message: { id: 3, text: 'Grüße', at: '2026-11-21T10:04:05.000001+00:00' } },
      },
    }) as unknown as RecordedEvent;
  const endpoint = async (accountId: string, events: string[] | null = null) =>
    (await endpoints.createWithinLimit(
      accountId,
      { url: 'https://example.com/hook', events: events as never, secretSealed: box.seal('whsec_x', accountId) },
      10,
    ))!;
  const rowsOf = (endpointId: string) =>
    queryRows<{
      id: string;
      event_id: string;
      body: Buffer;
      status: string;
      attempts: number;
      next_attempt_at: string;
      locked_until: string | null;
    }>(db.dataSource, 'SELECT * FROM webhooks.deliveries WHERE endpoint_id = $1 ORDER BY event_id', [endpointId]);
  const claimWithInfo = (limit = 100, maxInFlightPerEndpoint = 100, leaseMs = 60_000, maxInFlightPerAccount = 1_000) =>
    deliveries.claim({ limit, maxInFlightPerEndpoint, maxInFlightPerAccount, leaseMs, token: randomUUID() });
  const claim = async (limit?: number, maxInFlightPerEndpoint?: number, leaseMs?: number, maxInFlightPerAccount?: number) =>
    (await claimWithInfo(limit, maxInFlightPerEndpoint, leaseMs, maxInFlightPerAccount)).deliveries;
  /** Nothing else due: earlier tests' deliveries are finished off so that each test claims only its own. */
  const settle = () => execute(db.dataSource, `UPDATE webhooks.deliveries SET status = 'delivered' WHERE status = 'pending'`);

  /** Counts NOTIFYs on the deliveries channel; `settle` waits for those sent before it. */
  const listenForDeliveries = async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    const counter = {
      notifications: 0,
      // eslint-disable-next-line no-restricted-syntax -- a round trip on the LISTEN connection itself (no rows read)
      settle: async () => void (await client.query('SELECT 1')), // notifications sent before this answer have arrived
      close: () => client.end(),
    };
    client.on('notification', () => (counter.notifications += 1));
    await listen(client, [DELIVERIES_CHANNEL]);
    return counter;
  };

  beforeAll(() => {
    endpoints = new EndpointsRepository(db.dataSource);
    deliveries = new DeliveriesRepository(db.dataSource);
    service = new DeliveryService(deliveries);
  });
  beforeEach(settle);
  describe('recordEvent', () => {
    it('makes one delivery per matching active endpoint of the account, with the JSON of the event as body', async () => {
      const account = randomUUID();
      const all = await endpoint(account);
      const matching = await endpoint(account, ['consent.granted', 'message.received']);
      const other = await endpoint(account, ['consent.granted']);
      const deleted = await endpoint(account);
      await endpoints.delete(account, deleted.id);
      const foreign = await endpoint(randomUUID());
      const event = recorded(account);
      await service.recordEvent(event);
      for (const e of [all, matching]) {
        const rows = await rowsOf(e.id);
        expect(rows).toHaveLength(1);
        expect(rows[0]!.body.equals(Buffer.from(JSON.stringify(event.event), 'utf8'))).toBe(true);
        expect(rows[0]!.status).toBe('pending');
      }
      for (const e of [other, deleted, foreign]) expect(await rowsOf(e.id)).toHaveLength(0);
    });

    it('adds nothing for a redelivered event, and notifies only when it made deliveries', async () => {
      const account = randomUUID();
      const e = await endpoint(account);
      const listener = await listenForDeliveries();
      try {
        const event = recorded(account);
        await service.recordEvent(event);
        await service.recordEvent(event);
        await service.recordEvent(recorded(randomUUID()));
        await listener.settle();
        expect(await rowsOf(e.id)).toHaveLength(1);
        expect(listener.notifications).toBe(1);
      } finally {
        await listener.close();
      }
    });

    it("leases what it makes to the caller, up to its room and each endpoint's cap, and notifies for nothing it leased", async () => {
      const account = randomUUID();
      const [a, b, c] = [await endpoint(account), await endpoint(account), await endpoint(account)];
      // Endpoint c is at its cap of 1 leased delivery already.
      await deliveries.insertForEvents([{ accountId: account, eventId: 900, kind: 'message.received', body: Buffer.from('{}') }], {
        notify: false,
      });
      await execute(
        db.dataSource,
        `UPDATE webhooks.deliveries SET locked_until = now() + interval '1 minute', claim_token = $2 WHERE endpoint_id = $1`,
        [c.id, randomUUID()],
      );
      await execute(db.dataSource, `UPDATE webhooks.deliveries SET status = 'delivered' WHERE endpoint_id <> $1 AND account_id = $2`, [
        c.id,
        account,
      ]);
      const listener = await listenForDeliveries();
      try {
        const token = randomUUID();
        const body = Buffer.from('{"id":901}');
        const made = await deliveries.insertForEvents([{ accountId: account, eventId: 901, kind: 'message.received', body }], {
          lease: { token, leaseMs: 60_000, maxInFlightPerEndpoint: 1, maxInFlightPerAccount: 100, room: 1 },
          notify: false,
        });
        expect(made.inserted).toBe(3);
        // Room for one: the first endpoint below its cap (a) is leased; b waits for a claim; c is at its cap.
        expect(made.leased).toHaveLength(1);
        expect(made.leased[0]).toMatchObject({
          endpoint_id: a.id,
          event_id: '901',
          url: 'https://example.com/hook',
          claim_token: token,
          attempts: 0,
        });
        expect(box.open(made.leased[0]!.secret_sealed, account)).toBe('whsec_x');
        expect(Buffer.from(made.leased[0]!.body).equals(body)).toBe(true);
        const leasedRows = await queryRows<{ endpoint_id: string; claim_token: string | null; held: boolean | null }>(
          db.dataSource,
          `SELECT endpoint_id::text, claim_token, locked_until > now() AS held FROM webhooks.deliveries WHERE event_id = 901 AND account_id = $1 ORDER BY endpoint_id`,
          [account],
        );
        expect(leasedRows).toEqual([
          { endpoint_id: a.id, claim_token: token, held: true },
          { endpoint_id: b.id, claim_token: null, held: null },
          { endpoint_id: c.id, claim_token: null, held: null },
        ]);
        // Not leased twice: a claim takes b (and c is still at its cap).
        expect((await claim(100, 1)).map((d) => d.endpoint_id)).toEqual([b.id]);

        const more = await deliveries.insertForEvents([{ accountId: account, eventId: 902, kind: 'message.received', body }], {
          lease: { token, leaseMs: 60_000, maxInFlightPerEndpoint: 5, maxInFlightPerAccount: 100, room: 10 },
          notify: false,
        });
        expect(more.leased.map((d) => d.endpoint_id).sort()).toEqual([a.id, b.id, c.id].sort());
        await listener.settle();
        expect(listener.notifications).toBe(0);
        await deliveries.insertForEvents([{ accountId: account, eventId: 903, kind: 'message.received', body }], { notify: true });
        await listener.settle();
        expect(listener.notifications).toBe(1);
      } finally {
        await listener.close();
      }
    });

    it('makes the deliveries of many events of several accounts in one statement, a repeat within the batch included, each endpoint leased up to its cap', async () => {
      const [first, second] = [randomUUID(), randomUUID()];
      const [a, b] = [await endpoint(first), await endpoint(second, ['consent.granted'])];
      const event = (accountId: string, eventId: number, kind = 'message.received') => ({
        accountId,
        eventId,
        kind,
        body: Buffer.from(`{"id":${eventId}}`),
      });
      const token = randomUUID();
      const made = await deliveries.insertForEvents(
        [event(first, 1), event(second, 1), event(first, 2), event(second, 2, 'consent.granted'), event(first, 3), event(first, 2)],
        { lease: { token, leaseMs: 60_000, maxInFlightPerEndpoint: 2, maxInFlightPerAccount: 100, room: 10 }, notify: false },
      );
      // first: events 1, 2, 3 (2 repeated); second: only its consent.granted event 2.
      expect(made.inserted).toBe(4);
      expect((await rowsOf(a.id)).map((r) => Number(r.event_id))).toEqual([1, 2, 3]);
      expect((await rowsOf(b.id)).map((r) => Number(r.event_id))).toEqual([2]);
      // Endpoint a's cap of 2 counts the deliveries of this very batch: events 1 and 2 are leased, 3 waits.
      expect(made.leased.map((d) => [d.endpoint_id, Number(d.event_id)]).sort()).toEqual(
        [
          [a.id, 1],
          [a.id, 2],
          [b.id, 2],
        ].sort(),
      );
      expect(made.leased.find((d) => d.endpoint_id === b.id)?.body.toString()).toBe('{"id":2}');
    });

    it("leases as it makes deliveries at most the account's cap over all its endpoints, counting its leases in flight", async () => {
      const account = randomUUID();
      for (let i = 0; i < 4; i += 1) await endpoint(account);
      const event = (eventId: number) => ({
        accountId: account,
        eventId,
        kind: 'message.received',
        body: Buffer.from(`{"id":${eventId}}`),
      });
      const lease = { token: randomUUID(), leaseMs: 60_000, maxInFlightPerEndpoint: 10, maxInFlightPerAccount: 5, room: 100 };
      const made = await deliveries.insertForEvents([event(1), event(2)], { lease, notify: false });
      expect(made.inserted).toBe(8);
      expect(made.leased).toHaveLength(5);
      const more = await deliveries.insertForEvents([event(3)], { lease, notify: false });
      expect(more).toMatchObject({ inserted: 4, leased: [] });
      await execute(db.dataSource, `UPDATE webhooks.deliveries SET status = 'delivered' WHERE account_id = $1`, [account]);
    });

    it.each([
      ['not an object', 'x'],
      ['a bad account id', { account_id: 'acme', event_id: 'x', event: { id: 1, event: 'message.sent', at: 'x', data: {} } }],
      ['no event id', { account_id: randomUUID(), event_id: 'x', event: { event: 'message.sent', at: 'x', data: {} } }],
      ['a bad kind', { account_id: randomUUID(), event_id: 'x', event: { id: 1, event: 'Message Sent', at: 'x', data: {} } }],
      ['no data', { account_id: randomUUID(), event_id: 'x', event: { id: 1, event: 'message.sent', at: 'x' } }],
    ])('refuses a malformed recorded event (%s) and stores nothing', async (_case, value) => {
      const [{ n: before }] = await queryRows<{ n: number }>(db.dataSource, 'SELECT count(*)::int AS n FROM webhooks.deliveries');
      await expect(service.recordEvent(value as unknown as RecordedEvent)).rejects.toBeInstanceOf(InvalidRecordedEventError);
      const [{ n: after }] = await queryRows<{ n: number }>(db.dataSource, 'SELECT count(*)::int AS n FROM webhooks.deliveries');
      expect(after).toBe(before);
    });
  });

  describe('claims', () => {
    it('gives each due delivery to one of many concurrent claimers, with the endpoint url and sealed secret', async () => {
      const account = randomUUID();
      const e = await endpoint(account);
      for (let i = 0; i < 40; i += 1) await service.recordEvent(recorded(account));
      const claimer = async () => {
        const mine: ClaimedDelivery[] = [];
        for (let batch = await claim(7); batch.length > 0; batch = await claim(7)) mine.push(...batch);
        return mine;
      };
      const batches = await Promise.all([claimer(), claimer(), claimer(), claimer()]);
      const ids = batches.flat().map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(40);
      const first = batches.flat()[0]!;
      expect(first.url).toBe('https://example.com/hook');
      expect(box.open(first.secret_sealed, account)).toBe('whsec_x');
      expect(await claim()).toEqual([]);
      expect((await rowsOf(e.id)).every((r) => r.locked_until !== null)).toBe(true);
    });

    it('leases at most the per-endpoint cap of one endpoint, counting deliveries already in flight', async () => {
      const account = randomUUID();
      const slow = await endpoint(account, ['consent.granted']);
      const fast = await endpoint(account, ['message.received']);
      for (let i = 0; i < 10; i += 1) await service.recordEvent(recorded(account, 'consent.granted'));
      for (let i = 0; i < 3; i += 1) await service.recordEvent(recorded(account, 'message.received'));
      const first = await claim(100, 4);
      expect(first.filter((d) => d.event_kind === 'consent.granted')).toHaveLength(4);
      expect(first.filter((d) => d.event_kind === 'message.received')).toHaveLength(3);
      expect(await claim(100, 4)).toEqual([]);
      expect((await rowsOf(slow.id)).filter((r) => r.locked_until === null)).toHaveLength(6);
      expect(fast.id).toBeDefined();
    });

    it('passes over an endpoint at its cap even when its backlog comes first, and says work was left behind', async () => {
      const account = randomUUID();
      await endpoint(account, ['consent.granted']);
      await endpoint(account, ['message.received']);
      for (let i = 0; i < 600; i += 1) await service.recordEvent(recorded(account, 'consent.granted'));
      const first = await claimWithInfo(100, 4);
      expect(first.deliveries).toHaveLength(4);
      expect(first.leftBehind).toBe(true);
      await service.recordEvent(recorded(account, 'message.received'));
      const next = await claimWithInfo(100, 4);
      expect(next.deliveries.map((d) => d.event_kind)).toEqual(['message.received']);
      expect(next.leftBehind).toBe(true);
    });

    it('walks the endpoints while few have pending deliveries, reads the due index first once many have, and claims alike either way', async () => {
      const repository = new DeliveriesRepository(db.dataSource);
      const claimed = async () =>
        (
          await repository.claim({
            limit: 100,
            maxInFlightPerEndpoint: 1_000,
            maxInFlightPerAccount: 1_000,
            leaseMs: 60_000,
            token: randomUUID(),
          })
        ).deliveries.length;
      // 70 endpoints (7 accounts of 10), each with a delivery waiting for a retry in an hour.
      for (let a = 0; a < 7; a += 1) {
        const account = randomUUID();
        for (let e = 0; e < 10; e += 1) await endpoint(account, ['consent.granted']);
        await service.recordEvent(recorded(account, 'consent.granted'));
      }
      await execute(db.dataSource, `UPDATE webhooks.deliveries SET next_attempt_at = now() + interval '1 hour' WHERE status = 'pending'`);
      const account = randomUUID();
      await endpoint(account, ['message.received']);
      for (let i = 0; i < 3; i += 1) await service.recordEvent(recorded(account));

      expect(repository.claimWalk).toBe('endpoints');
      expect(await claimed()).toBe(3);
      expect(repository.claimWalk).toBe('due'); // it walked 71 endpoints
      for (let i = 0; i < 2; i += 1) await service.recordEvent(recorded(account));
      expect(await claimed()).toBe(2);
      expect(repository.claimWalk).toBe('due');

      // A backlog of 300 due deliveries fills the due sample: the claim walks the endpoints (one now) and goes on walking.
      await execute(
        db.dataSource,
        `UPDATE webhooks.deliveries SET status = 'delivered' WHERE status = 'pending' AND event_kind = 'consent.granted'`,
      );
      const backlog = Array.from({ length: 300 }, () => {
        const id = nextEventId++;
        return { accountId: account, eventId: id, kind: 'message.received' as const, body: Buffer.from(`{"id":${id}}`) };
      });
      await deliveries.insertForEvents(backlog, { notify: false });
      expect(await claimed()).toBe(100);
      expect(repository.claimWalk).toBe('endpoints');
      expect(await claimed()).toBe(100);
    });

    it('says nothing was left behind when it took every due delivery, or found none', async () => {
      const account = randomUUID();
      await endpoint(account);
      for (let i = 0; i < 3; i += 1) await service.recordEvent(recorded(account));
      expect(await claimWithInfo(2)).toMatchObject({ deliveries: [expect.anything(), expect.anything()], leftBehind: true });
      expect(await claimWithInfo(2)).toMatchObject({ deliveries: [expect.anything()], leftBehind: false });
      expect(await claimWithInfo(2)).toEqual({ deliveries: [], leftBehind: false });
    });

    it("leases at most the per-account cap over all of an account's endpoints, and another account's due delivery still in the same claim", async () => {
      await settle();
      const [busy, quiet] = [randomUUID(), randomUUID()];
      for (let i = 0; i < 5; i += 1) await endpoint(busy);
      await endpoint(quiet);
      for (let i = 0; i < 10; i += 1) await service.recordEvent(recorded(busy));
      await service.recordEvent(recorded(quiet));
      // 50 due deliveries of `busy` over 5 endpoints (cap 4 each, 20 in all), cap 6 for an account.
      const first = await claimWithInfo(100, 4, 60_000, 6);
      expect(first.deliveries.filter((d) => d.account_id === busy)).toHaveLength(6);
      expect(first.deliveries.filter((d) => d.account_id === quiet)).toHaveLength(1);
      expect(first.leftBehind).toBe(true);
      // Its leases count: nothing more for `busy` until some finish, however many are due.
      expect(await claim(100, 4, 60_000, 6)).toEqual([]);
      await service.recordEvent(recorded(quiet));
      expect((await claim(100, 4, 60_000, 6)).map((d) => d.account_id)).toEqual([quiet]);
      await settle();
    });

    it('claims a delivery again once its lease has expired (a worker that died)', async () => {
      const account = randomUUID();
      await endpoint(account);
      await service.recordEvent(recorded(account));
      const [first] = await claim(10, 10, 200);
      expect(await claim()).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [again] = await claim();
      expect(again?.id).toBe(first!.id);
      expect(again?.claim_token).not.toBe(first!.claim_token);
    });
  });

  describe('completion', () => {
    const attempt = (
      deliveryId: string,
      accountId: string,
      claimToken: string,
      outcome: 'delivered' | 'retry' | 'failed',
      retryInMs = 0,
    ) => ({
      deliveryId,
      accountId,
      claimToken,
      outcome,
      retryInMs,
      startedAt: new Date().toISOString(),
      durationMs: 12,
      statusCode: outcome === 'delivered' ? 200 : 500,
      error: outcome === 'delivered' ? null : 'answered 500',
      responseBody: 'ok',
    });

    it('records each attempt and schedules a retry, ends delivered, or ends failed', async () => {
      const account = randomUUID();
      const e = await endpoint(account);
      for (let i = 0; i < 3; i += 1) await service.recordEvent(recorded(account));
      const [a, b, c] = (await claim()).sort((x, y) => Number(x.event_id) - Number(y.event_id));
      await deliveries.complete([
        attempt(a!.id, account, a!.claim_token, 'retry', 60_000),
        attempt(b!.id, account, b!.claim_token, 'delivered'),
        attempt(c!.id, account, c!.claim_token, 'failed'),
      ]);
      const rows = await rowsOf(e.id);
      expect(rows.map((r) => [r.status, r.attempts, r.locked_until])).toEqual([
        ['pending', 1, null],
        ['delivered', 1, null],
        ['failed', 1, null],
      ]);
      const [{ wait }] = await queryRows<{ wait: string }>(
        db.dataSource,
        'SELECT extract(epoch FROM next_attempt_at - now()) AS wait FROM webhooks.deliveries WHERE id = $1',
        [a!.id],
      );
      expect(Number(wait)).toBeGreaterThan(55);
      expect(Number(wait)).toBeLessThanOrEqual(60);
      expect(await claim()).toEqual([]);
      const recordedAttempts = await queryRows<{
        status_code: number | null;
        error: string | null;
        duration_ms: number;
        response_body: string | null;
      }>(
        db.dataSource,
        'SELECT status_code, error, duration_ms, response_body FROM webhooks.attempts WHERE delivery_id = ANY ($1) ORDER BY delivery_id',
        [[a!.id, b!.id, c!.id]],
      );
      expect(recordedAttempts).toEqual([
        { status_code: 500, error: 'answered 500', duration_ms: 12, response_body: 'ok' },
        { status_code: 200, error: null, duration_ms: 12, response_body: 'ok' },
        { status_code: 500, error: 'answered 500', duration_ms: 12, response_body: 'ok' },
      ]);
    });

    it('ignores the result of a lease that was lost, but keeps the attempt on record', async () => {
      const account = randomUUID();
      const e = await endpoint(account);
      await service.recordEvent(recorded(account));
      const [stale] = await claim(10, 10, 100);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [current] = await claim();
      await deliveries.complete([attempt(stale!.id, account, stale!.claim_token, 'failed')]);
      expect((await rowsOf(e.id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
      await deliveries.complete([attempt(current!.id, account, current!.claim_token, 'delivered')]);
      expect((await rowsOf(e.id))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
      const [{ n }] = await queryRows<{ n: number }>(
        db.dataSource,
        'SELECT count(*)::int AS n FROM webhooks.attempts WHERE delivery_id = $1',
        [current!.id],
      );
      expect(n).toBe(2);
    });
  });

  describe('erasure', () => {
    const chatEvent = (
      accountId: string,
      n: number,
      kind: 'handover.created' | 'message.received' = 'handover.created',
    ): RecordedEvent => ({
      account_id: accountId,
      event_id: randomUUID(),
      event: { id: nextEventId++, event: kind, at: '2026-11-21T10:04:05.123456+00:00', data: sampleEventData(kind, { n }) } as PublicEvent,
    });
    const bodies = async (accountId: string) =>
      (
        await queryRows<{ event_id: string; body: Buffer }>(
          db.dataSource,
          'SELECT event_id, body FROM webhooks.deliveries WHERE account_id = $1 ORDER BY event_id, endpoint_id',
          [accountId],
        )
      ).map((r) => ({ eventId: Number(r.event_id), event: JSON.parse(r.body.toString('utf8')) as PublicEvent }));

    it("blanks every delivery body of the erased customer (pending, leased, finished) as the feed blanks events, same ids and key order, and no one else's", async () => {
      const account = randomUUID();
      await endpoint(account);
      await endpoint(account);
      const [mine, again, theirs] = [chatEvent(account, 1), chatEvent(account, 1, 'message.received'), chatEvent(account, 2)];
      for (const e of [mine, again, theirs]) await service.recordEvent(e);
      const [leased] = await claim(1);
      await execute(
        db.dataSource,
        `UPDATE webhooks.deliveries SET status = 'delivered' WHERE id = (SELECT min(id) FROM webhooks.deliveries WHERE account_id = $1 AND id <> $2)`,
        [account, leased!.id],
      );
      expect(await service.eraseContact(account, 1001)).toBe(4);
      const stored = await bodies(account);
      for (const { eventId, event } of stored) {
        const original = [mine, again, theirs].find((e) => e.event.id === eventId)!.event;
        const expected = original === theirs.event ? original : { ...original, data: eraseEventData(original.data) };
        expect(event).toEqual(expected);
        expect(Object.keys(event)).toEqual(['id', 'event', 'at', 'data']);
      }
      expect(JSON.stringify(stored.filter((s) => s.eventId !== theirs.event.id))).not.toMatch(/Ada|ada@example\.com|447700900123/);
      expect(JSON.stringify(stored.filter((s) => s.eventId === theirs.event.id))).toMatch(/ada@example\.com/);
      // Idempotent: a redelivered erasure changes nothing more.
      expect(await service.eraseContact(account, 1001)).toBe(0);
      await settle();
    });

    it('makes the deliveries of an event of an erased customer that arrives later with the blanked body, the leased ones included', async () => {
      const account = randomUUID();
      await endpoint(account);
      await service.eraseContact(account, 1003);
      const late = chatEvent(account, 3);
      await service.recordEvent(late);
      const [{ event }] = await bodies(account);
      expect(event).toEqual({ ...late.event, data: eraseEventData(late.event.data) });
      const lease = { token: randomUUID(), leaseMs: 60_000, maxInFlightPerEndpoint: 10, maxInFlightPerAccount: 10, room: 10 };
      const body = Buffer.from(JSON.stringify(late.event));
      const made = await deliveries.insertForEvents(
        [
          {
            accountId: account,
            eventId: 77_777,
            kind: 'handover.created',
            body,
            erasure: { svcId: 1003, body: Buffer.from('{"blank":true}') },
          },
        ],
        { lease, notify: false },
      );
      expect(made.leased.map((d) => Buffer.from(d.body).toString())).toEqual(['{"blank":true}']);
      // Another account's customer with the same svc_id is not erased.
      const other = randomUUID();
      await endpoint(other);
      const theirs = chatEvent(other, 3);
      await service.recordEvent(theirs);
      expect((await bodies(other))[0]!.event).toEqual(theirs.event);
      await settle();
    });

    it('blanks after the commit what an insert made while an erasure committed unseen by it', async () => {
      const account = randomUUID();
      await endpoint(account);
      // The erasure committed (and blanked, finding nothing yet) while the insert ran, unseen by its statement:
      // here its record is written right after the insert, before the service looks again.
      const late = chatEvent(account, 4);
      const original = deliveries.insertForEvents.bind(deliveries);
      const spy = jest.spyOn(deliveries, 'insertForEvents').mockImplementationOnce(async (events, options) => {
        const made = await original(events, options);
        await deliveries.recordErasure(account, 1004);
        return made;
      });
      try {
        await service.recordEvent(late);
      } finally {
        spy.mockRestore();
      }
      expect((await bodies(account))[0]!.event).toEqual({ ...late.event, data: eraseEventData(late.event.data) });
      await settle();
    });
  });

  describe('retention', () => {
    it('removes finished deliveries older than the retention with their attempts, keeps pending and recent ones, then empty deleted endpoints', async () => {
      const account = randomUUID();
      const e = await endpoint(account);
      for (let i = 0; i < 4; i += 1) await service.recordEvent(recorded(account));
      const rows = await rowsOf(e.id);
      const [old, recent, pending, oldFailed] = rows;
      await execute(
        db.dataSource,
        `INSERT INTO webhooks.attempts (delivery_id, account_id, started_at, duration_ms) SELECT id, account_id, now(), 1 FROM webhooks.deliveries WHERE endpoint_id = $1`,
        [e.id],
      );
      await execute(
        db.dataSource,
        `UPDATE webhooks.deliveries SET status = 'delivered', finished_at = now() - interval '31 days' WHERE id = $1`,
        [old!.id],
      );
      await execute(
        db.dataSource,
        `UPDATE webhooks.deliveries SET status = 'delivered', finished_at = now() - interval '29 days' WHERE id = $1`,
        [recent!.id],
      );
      await execute(
        db.dataSource,
        `UPDATE webhooks.deliveries SET status = 'failed', finished_at = now() - interval '40 days' WHERE id = $1`,
        [oldFailed!.id],
      );
      expect(await deliveries.prune(30, 1)).toBe(1);
      expect(await deliveries.prune(30, 10)).toBe(1);
      expect((await rowsOf(e.id)).map((r) => r.id)).toEqual([recent!.id, pending!.id]);
      const [{ n }] = await queryRows<{ n: number }>(
        db.dataSource,
        'SELECT count(*)::int AS n FROM webhooks.attempts WHERE delivery_id = ANY ($1)',
        [[old!.id, oldFailed!.id]],
      );
      expect(n).toBe(0);

      await endpoints.delete(account, e.id);
      await execute(db.dataSource, `UPDATE webhooks.deliveries SET finished_at = now() - interval '31 days' WHERE endpoint_id = $1`, [
        e.id,
      ]);
      await execute(db.dataSource, `UPDATE webhooks.endpoints SET deleted_at = now() - interval '31 days' WHERE id = $1`, [e.id]);
      expect(await deliveries.prune(30, 10)).toBe(2);
      expect(await queryRows<{ id: string }>(db.dataSource, 'SELECT id FROM webhooks.endpoints WHERE id = $1', [e.id])).toEqual([]);
    });
  });

  describe('endpoints', () => {
    it('cancels pending deliveries of a deleted endpoint; a result arriving afterwards changes nothing', async () => {
      const account = randomUUID();
      const e = await endpoint(account);
      for (let i = 0; i < 3; i += 1) await service.recordEvent(recorded(account));
      const [inFlight] = await claim(1);
      expect(await endpoints.delete(account, e.id)).toBe(true);
      expect((await rowsOf(e.id)).map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
      await deliveries.complete([
        {
          deliveryId: inFlight!.id,
          accountId: account,
          claimToken: inFlight!.claim_token,
          outcome: 'retry',
          retryInMs: 0,
          startedAt: new Date().toISOString(),
          durationMs: 1,
          statusCode: 500,
          error: 'answered 500',
          responseBody: null,
        },
      ]);
      expect((await rowsOf(e.id)).map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
      expect(await claim()).toEqual([]);
      expect(await endpoints.delete(account, e.id)).toBe(false);
    });

    it('erases the sealed secret of a deleted endpoint', async () => {
      const account = randomUUID();
      const e = await endpoint(account);
      await endpoints.delete(account, e.id);
      const [row] = await queryRows<{ n: number }>(
        db.dataSource,
        'SELECT length(secret_sealed) AS n FROM webhooks.endpoints WHERE id = $1',
        [e.id],
      );
      expect(row.n).toBe(0);
    });

    it("deletes only the account's own endpoint", async () => {
      const e = await endpoint(randomUUID());
      expect(await endpoints.delete(randomUUID(), e.id)).toBe(false);
    });

    it('keeps to 10 endpoints per account under concurrent registration', async () => {
      const account = randomUUID();
      const results = await Promise.all(
        Array.from({ length: 16 }, () =>
          endpoints.createWithinLimit(account, { url: 'https://example.com/x', events: null, secretSealed: Buffer.from('x') }, 10),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(10);
      expect(await endpoints.list(account)).toHaveLength(10);
    });
  });
});
