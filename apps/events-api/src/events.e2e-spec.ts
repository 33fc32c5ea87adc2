import { DomainMessage, ErrorBody, EVENT_KINDS, PublicEvent } from '@svc/contracts';
import { DOMAIN_EXCHANGE, domainMessage, parkingQueue } from '@svc/messaging';
import {
  ADA,
  putCustomer,
  RunningProcess,
  runAdmin,
  Stack,
  startRelay,
  startStack,
  TestAccount,
  TestProducer,
  waitFor,
} from '@svc/testing';
import { connect } from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;

interface Page {
  events: PublicEvent[];
  next_after: number;
  more: boolean;
}

/** The n that made a sample distinct (message.received samples carry message.id = 90000 + n). */
const marker = (event: PublicEvent) => (event.data as { message: { id: number } }).message.id - 90_000;

describe('events-api: the pipeline from a producer outbox to the feed (real PostgreSQL and RabbitMQ)', () => {
  let stack: Stack;
  let producer: TestProducer;
  let relay: RunningProcess;
  const relayEnv = () => ({ DATABASE_URL: stack.db.url, RABBITMQ_URL: stack.env['RABBITMQ_URL']! });

  const page = async (account: TestAccount, query = ''): Promise<Page> => {
    const response = await stack.call(`/events${query}`, { key: account.key });
    expect(response.status).toBe(200);
    return (await response.json()) as Page;
  };

  /** Reads the whole feed of an account from `after`, page by page. */
  const readAll = async (account: TestAccount, limit = 200): Promise<PublicEvent[]> => {
    const events: PublicEvent[] = [];
    let after = 0;
    for (;;) {
      const body = await page(account, `?after=${after}&limit=${limit}`);
      events.push(...body.events);
      after = body.next_after;
      if (!body.more) return events;
    }
  };

  const feedHas = (account: TestAccount, count: number) =>
    waitFor(`${count} events in the feed`, async () => {
      const events = await readAll(account);
      return events.length >= count ? events : undefined;
    });

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'events-api']);
    producer = await TestProducer.create(stack.db.url);
    relay = await startRelay(relayEnv());
  }, 60_000);

  afterAll(async () => {
    await relay?.stop();
    await producer?.close();
    await stack?.stop();
  });

  describe('GET /events', () => {
    let account: TestAccount;

    beforeAll(async () => {
      account = await stack.newAccount('Feed');
      for (let n = 1; n <= 5; n++) await producer.emit('message.received', account.accountId, n);
      await producer.emit('contact.confirmed', stack.other.accountId, 6);
      await feedHas(account, 5);
    });

    it("serves the account's events in order with the contract's shape", async () => {
      const body = await page(account);
      expect(body.more).toBe(false);
      expect(body.events.map(marker).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(body.next_after).toBe(body.events[4]!.id);
      for (const [i, event] of body.events.entries()) {
        expect(Object.keys(event).sort()).toEqual(['at', 'data', 'event', 'id']);
        expect(event.event).toBe('message.received');
        expect(event.at).toMatch(TIMESTAMP);
        if (i > 0) expect(event.id).toBeGreaterThan(body.events[i - 1]!.id);
      }
    });

    it('pages with after, limit, next_after and more', async () => {
      const all = (await page(account)).events.map(marker);
      const first = await page(account, '?limit=2');
      expect(first.events.map(marker)).toEqual(all.slice(0, 2));
      expect(first).toMatchObject({ more: true, next_after: first.events[1]!.id });
      const second = await page(account, `?after=${first.next_after}&limit=2`);
      expect(second.events.map(marker)).toEqual(all.slice(2, 4));
      expect(second.more).toBe(true);
      const third = await page(account, `?after=${second.next_after}&limit=2`);
      expect(third.events.map(marker)).toEqual(all.slice(4));
      expect(third).toMatchObject({ more: false, next_after: third.events[0]!.id });
      const past = await page(account, `?after=${third.next_after + 100}`);
      expect(past).toEqual({ events: [], next_after: third.next_after + 100, more: false });
    });

    it("never shows another account's events", async () => {
      const mine = await readAll(account);
      const others = await feedHas(stack.other, 1);
      expect(others.map((e) => e.event)).toEqual(['contact.confirmed']);
      expect(mine.every((e) => e.event === 'message.received')).toBe(true);
    });

    it.each([
      ['after=-1', 'after'],
      ['after=abc', 'after'],
      ['after=1.5', 'after'],
      ['after=', 'after'],
      ['after=1e3', 'after'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1&limit=2', 'limit'],
    ])('%s → 400 invalid_parameter naming %s', async (query, field) => {
      const response = await stack.call(`/events?${query}`, { key: account.key });
      expect(response.status).toBe(400);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.details?.map((d) => d.path)).toContain(field);
    });

    it('accepts the bounds limit=1 and limit=200', async () => {
      expect((await page(account, '?limit=1')).events).toHaveLength(1);
      expect((await page(account, '?limit=200')).events).toHaveLength(5);
    });
  });

  it('removes a customer erased through DELETE /contacts/{ref} from retained events', async () => {
    const account = await stack.newAccount('Erasure');
    const svcId = await putCustomer(stack, 'cust-erase', ADA, account.key);
    // A chat event about this customer (samples carry svc_id 1000 + n) and one about somebody else.
    await producer.emit('handover.created', account.accountId, svcId - 1000);
    await producer.emit('handover.created', account.accountId, svcId - 999);
    await feedHas(account, 2);
    expect((await stack.call('/contacts/cust-erase', { method: 'DELETE', key: account.key })).status).toBe(204);
    const contactOf = (e: PublicEvent) => (e.data as unknown as { contact: { svc_id: number; name: string } }).contact;
    const events = await waitFor('the erasure to reach the feed', async () => {
      const all = await readAll(account);
      return all.some((e) => contactOf(e).svc_id === svcId && contactOf(e).name === '') ? all : undefined;
    });
    const erased = events.find((e) => contactOf(e).svc_id === svcId)!.data as unknown as {
      contact: Record<string, unknown>;
      reach: Record<string, unknown>;
    };
    expect(erased.contact).toMatchObject({ name: '', email: null, phone: null, svc_id: svcId });
    expect(erased.reach).toMatchObject({ email: '', whatsapp: '' });
    const other = events.find((e) => contactOf(e).svc_id !== svcId)!;
    expect(contactOf(other).name).toBe('Ada Lovelace');
  });

  it('delivers 2,000 events from concurrent writers to pollers in order, each exactly once', async () => {
    const accounts = await Promise.all([stack.newAccount('A'), stack.newAccount('B'), stack.newAccount('C')]);
    const total = 2_000;
    let next = 1;
    const expected = new Map<string, Set<number>>(accounts.map((a) => [a.accountId, new Set()]));
    const writer = async () => {
      while (next <= total) {
        const n = next++;
        const account = accounts[n % 3]!;
        expected.get(account.accountId)!.add(n);
        await producer.emit('message.received', account.accountId, n);
      }
    };
    const poll = async (account: TestAccount) => {
      const seen: PublicEvent[] = [];
      let after = 0;
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        const body = await page(account, `?after=${after}&limit=7`);
        seen.push(...body.events);
        after = body.next_after;
        if (!body.more) {
          if (next > total && seen.length >= expected.get(account.accountId)!.size) return seen;
          await sleep(5);
        }
      }
      return seen;
    };
    const [, ...seen] = await Promise.all([Promise.all(Array.from({ length: 8 }, writer)), ...accounts.map(poll)]);
    for (const [i, account] of accounts.entries()) {
      const events = seen[i]!;
      const ids = events.map((e) => e.id);
      expect(ids.every((id, k) => k === 0 || id > ids[k - 1]!)).toBe(true);
      const markers = events.map(marker);
      expect(new Set(markers).size).toBe(markers.length);
      expect(new Set(markers)).toEqual(expected.get(account.accountId));
    }
  }, 120_000);

  it('loses and doubles nothing when the relay and events-api are killed -9 during 1,000 events', async () => {
    const account = await stack.newAccount('Crashes');
    const total = 1_000;
    const emitting = (async () => {
      for (let n = 1; n <= total; n++) {
        await producer.emit('message.received', account.accountId, n);
        if (n % 50 === 0) await sleep(20);
      }
    })();
    const killing = (async () => {
      for (let round = 0; round < 3; round++) {
        await sleep(200 + Math.random() * 600);
        await relay.stop('SIGKILL');
        relay = await startRelay(relayEnv());
        await sleep(Math.random() * 600);
        await stack.restart('events-api', 'SIGKILL');
      }
    })();
    await Promise.all([emitting, killing]);
    const events = await feedHas(account, total);
    await sleep(1_000); // anything doubled would show up by now
    const final = await readAll(account);
    expect(final).toHaveLength(total);
    expect(new Set(final.map(marker)).size).toBe(total);
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
  }, 120_000);

  it('parks a malformed message and keeps consuming', async () => {
    const account = await stack.newAccount('Poison');
    const connection = await connect(stack.env['RABBITMQ_URL']!);
    try {
      const channel = await connection.createConfirmChannel();
      const garbage: Array<[string, Buffer]> = [
        ['message.received', Buffer.from('not json')],
        [
          'message.received',
          Buffer.from(JSON.stringify({ id: 'nope', kind: 'message.received', account_id: account.accountId, at: 'yesterday', data: {} })),
        ],
        [
          'contact.erased',
          Buffer.from(JSON.stringify({ ...domainMessage('contact.erased', account.accountId, { svc_id: 1, ref: null }), data: {} })),
        ],
      ];
      for (const [key, body] of garbage) channel.publish(DOMAIN_EXCHANGE, key, body, { persistent: true });
      await channel.waitForConfirms();
      await producer.emit('message.sent', account.accountId, 77);
      const events = await feedHas(account, 1);
      expect(events.map((e) => e.event)).toEqual(['message.sent']);
      const parked = await waitFor('the parked messages', async () => {
        const { messageCount } = await channel.checkQueue(parkingQueue('events-api.domain'));
        return messageCount >= garbage.length ? messageCount : undefined;
      });
      expect(parked).toBe(garbage.length);
    } finally {
      await connection.close();
    }
  });

  it('accepts every public kind the contract lists', async () => {
    const account = await stack.newAccount('Kinds');
    const sent: DomainMessage[] = [];
    for (const [i, kind] of EVENT_KINDS.entries()) sent.push(await producer.emit(kind, account.accountId, 200 + i));
    const events = await feedHas(account, EVENT_KINDS.length);
    // Ids follow the order events became visible, not necessarily the order they were produced.
    const byKind = (list: Array<{ kind?: string; event?: string; data: unknown }>) =>
      Object.fromEntries(list.map((e) => [e.event ?? e.kind, e.data]));
    expect(byKind(events)).toEqual(byKind(sent));
    expect(Object.keys(byKind(events)).sort()).toEqual([...EVENT_KINDS].sort());
  });

  describe('admin trigger', () => {
    const admin = (...args: string[]) =>
      runAdmin(args, {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: stack.db.url,
        RABBITMQ_URL: stack.env['RABBITMQ_URL']!,
        APP_URL: 'https://app.example.com',
        EVENTS_API_URL: stack.services['events-api']!.internalUrl,
        ADMIN_INTERNAL_KEY: stack.env['ADMIN_INTERNAL_KEY']!,
      });

    it('produces a sample of every kind through the pipeline into the feed, printing the feed id it got', async () => {
      const account = await stack.newAccount('Trigger');
      const printed: Array<[number, string]> = [];
      for (const kind of EVENT_KINDS) {
        const result = admin('trigger', kind, '--account', account.accountId);
        expect(result.status).toBe(0);
        const output = JSON.parse(result.stdout) as { event_id: number; kind: string };
        expect(output).toEqual({ event_id: expect.any(Number), kind, account_id: account.accountId });
        printed.push([output.event_id, kind]);
      }
      const events = await feedHas(account, EVENT_KINDS.length);
      expect(events.map((e) => e.event).sort()).toEqual([...EVENT_KINDS].sort());
      // The printed id is the one the feed (and every webhook delivery) shows for that event.
      expect(printed).toEqual(events.map((e) => [e.id, e.event]));
      for (const event of events) {
        const { contact, conversation } = event.data as unknown as {
          contact: Record<string, unknown>;
          conversation: { url: string } | null;
        };
        expect(contact).toMatchObject({
          svc_id: expect.any(Number),
          created_at: expect.stringMatching(TIMESTAMP),
          updated_at: expect.stringMatching(TIMESTAMP),
        });
        if (conversation) expect(conversation.url).toMatch(/^https:\/\/app\.example\.com\/conversations\/\d+$/);
      }
    });

    it('refuses an unknown kind (usage, exit 2) and an unknown account (exit 1), printing nothing on stdout', () => {
      const badKind = admin('trigger', 'contact.deleted', '--account', stack.account.accountId);
      expect(badKind.status).toBe(2);
      expect(badKind.stdout).toBe('');
      expect(badKind.stderr).toMatch(/must be one of/);
      const badAccount = admin('trigger', 'message.sent', '--account', '00000000-0000-4000-8000-000000000000');
      expect(badAccount.status).toBe(1);
      expect(badAccount.stdout).toBe('');
      expect(badAccount.stderr).toMatch(/no account/);
    });
  });
});
