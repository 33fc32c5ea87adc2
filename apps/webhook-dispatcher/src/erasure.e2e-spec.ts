import { CreatedWebhookDto, PublicEvent } from '@svc/contracts';
import {
  closeAll,
  HttpsReceiver,
  PRODUCER_SCHEMA,
  ReceivedRequest,
  RunningProcess,
  Stack,
  startProducer,
  startReceivingStack,
  TestCa,
  TestProducer,
  waitFor,
} from '@svc/testing';
import { queryOne, queryRows } from '@svc/persistence';

/** What the sample chat events (and the customer written here) carry: none of it may survive an erasure. */
const PERSONAL = /Ada Lovelace|ada@example\.com|447700900123/;

describe('erasure reaches webhook deliveries, the feed and the outboxes (contacts-api, events-api, webhook-dispatcher)', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let stack: Stack;
  let producer: TestProducer;
  let relay: RunningProcess;

  beforeAll(async () => {
    ({ ca, receiver, stack } = await startReceivingStack(['contacts-api', 'events-api', 'webhook-dispatcher'], {
      WEBHOOK_RETRY_SCHEDULE: '2s,2s,2s,2s,2s,2s',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_POLL_INTERVAL_MS: '100',
    }));
    ({ producer, relay } = await startProducer(stack));
  }, 90_000);

  afterAll(() => closeAll(relay, producer, stack, receiver, ca));

  const feedOf = async (key: string): Promise<PublicEvent[]> =>
    ((await (await stack.call('/events?after=0', { key })).json()) as { events: PublicEvent[] }).events;
  const parsed = (request: ReceivedRequest) => JSON.parse(request.body.toString('utf8')) as PublicEvent;
  /** The first request to `path` received after `since` that `match` accepts. */
  const nextRequest = (path: string, since: number, match: (r: ReceivedRequest) => boolean) =>
    waitFor(`a request to ${path}`, async () => receiver.received(path).find((r) => r.receivedAt > since && match(r)), 20_000);

  it('blanks pending deliveries and their retries (same event id), events of the customer appended later, and leaves no copy in any outbox', async () => {
    const account = await stack.newAccount('Erasure');
    // The receiver fails every attempt, so the deliveries stay pending and are retried.
    receiver.respond('/failing', { status: 503 });
    const registered = await stack.call('/webhooks', { method: 'POST', key: account.key, json: { url: receiver.url('/failing') } });
    expect(registered.status).toBe(201);
    const endpoint = (await registered.json()) as CreatedWebhookDto;
    const put = await stack.call('/contacts/cust-erase', {
      method: 'PUT',
      key: account.key,
      json: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+447700900123' },
    });
    expect(put.status).toBe(201);
    const { svc_id: svcId } = (await put.json()) as { svc_id: number };

    // A chat event about this customer (samples carry svc_id 1000 + n): its first attempt carries their details.
    await producer.emit('handover.created', account.accountId, svcId - 1000);
    const [first] = await receiver.waitFor('/failing', 1, 30_000);
    expect(first!.body.toString('utf8')).toMatch(PERSONAL);
    const eventId = first!.headers['x-svc-event-id'];

    expect((await stack.call('/contacts/cust-erase', { method: 'DELETE', key: account.key })).status).toBe(204);
    await waitFor('the erasure to reach the pending delivery', async () => {
      const rows = await queryRows<{ body: Buffer }>(stack.dataSource, 'SELECT body FROM webhooks.deliveries WHERE endpoint_id = $1', [
        endpoint.id,
      ]);
      return rows.length === 1 && !PERSONAL.test(rows[0]!.body.toString('utf8')) ? true : undefined;
    });
    const blankedAt = Date.now();

    // The next retry: same event id, the body the feed now serves, nothing personal.
    const retry = await nextRequest('/failing', blankedAt + 100, (r) => r.headers['x-svc-event-id'] === eventId);
    expect(retry.body.toString('utf8')).not.toMatch(PERSONAL);
    const [feedEvent] = await feedOf(account.key);
    expect(parsed(retry)).toEqual(feedEvent);
    expect(String(feedEvent!.id)).toBe(eventId);
    expect(parsed(retry).data).toMatchObject({
      contact: { svc_id: svcId, name: '', email: null, phone: null },
      reach: { email: '', whatsapp: '' },
    });

    // An event of the erased customer that reaches events-api after the erasure: blanked in the feed and in its webhook.
    await producer.emit('message.received', account.accountId, svcId - 1000);
    const feed = await waitFor('the late event in the feed', async () => {
      const events = await feedOf(account.key);
      return events.length === 2 ? events : undefined;
    });
    const late = feed[1]!;
    expect(late.event).toBe('message.received');
    expect(late.data.contact).toMatchObject({ svc_id: svcId, name: '', email: null, phone: null });
    const lateRequest = await nextRequest('/failing', 0, (r) => r.headers['x-svc-event-id'] === String(late.id));
    expect(lateRequest.body.toString('utf8')).not.toMatch(PERSONAL);
    expect(parsed(lateRequest)).toEqual(late);

    // No copy anywhere: every outbox published and kept nothing; the log and the deliveries are blanked.
    const outboxes = ['contacts', 'events', PRODUCER_SCHEMA];
    const kept = await waitFor('the outboxes to be published', async () => {
      const counts = await Promise.all(
        outboxes.map(
          async (schema) => (await queryOne<{ n: number }>(stack.dataSource, `SELECT count(*)::int AS n FROM ${schema}.outbox`))?.n,
        ),
      );
      return counts.every((n) => n === 0) ? counts : undefined;
    });
    expect(kept).toEqual([0, 0, 0]);
    const stored = await queryRows<{ text: string }>(
      stack.dataSource,
      `SELECT data::text AS text FROM events.events WHERE account_id = $1
       UNION ALL SELECT convert_from(body, 'UTF8') FROM webhooks.deliveries WHERE account_id = $1`,
      [account.accountId],
    );
    expect(stored).toHaveLength(4);
    for (const { text } of stored) expect(text).not.toMatch(PERSONAL);
  }, 90_000);
});
