import { CreatedWebhookDto, PublicEvent } from '@svc/contracts';
import {
  closeAll,
  HttpsReceiver,
  ReceivedRequest,
  RunningProcess,
  Stack,
  startProducer,
  startReceivingStack,
  TestAccount,
  TestCa,
  TestProducer,
  waitFor,
} from '@svc/testing';
import { verify } from '@svc/webhook-signing';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { feedEvents, sampleEvent } from '@svc/testing';
import { queryRows } from '@svc/persistence';

/** Short settings so that retries and timeouts happen within a test. */
const SCHEDULE_MS = [1_000, 2_000, 3_000, 4_000, 5_000, 6_000];
const TIMEOUT_MS = 1_500;
const CONCURRENCY = 8;
const PER_ENDPOINT = 4;

interface AttemptRow {
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

describe('webhook-dispatcher: signed deliveries to a real https receiver', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let stack: Stack;
  let producer: TestProducer;
  let relay: RunningProcess;
  let paths = 0;

  const dispatcher = () => stack.services['webhook-dispatcher']!;
  const feed = (account: TestAccount, events: PublicEvent[]) => feedEvents(dispatcher().internalUrl, stack.env, account.accountId, events);
  /** A fresh account with an endpoint at a fresh path of the receiver. */
  const register = async (
    account: TestAccount,
    events?: string[],
    path = `/hook-${(paths += 1)}`,
  ): Promise<CreatedWebhookDto & { path: string }> => {
    const response = await stack.call('/webhooks', {
      method: 'POST',
      key: account.key,
      json: { url: receiver.url(path), ...(events ? { events } : {}) },
    });
    expect(response.status).toBe(201);
    return { ...((await response.json()) as CreatedWebhookDto), path };
  };
  const attemptsOf = (endpointId: number): Promise<AttemptRow[]> =>
    queryRows<AttemptRow>(
      stack.dataSource,
      `SELECT a.started_at, a.duration_ms, a.status_code, a.error, a.response_body
       FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1 ORDER BY a.id`,
      [endpointId],
    );
  const statusesOf = async (endpointId: number): Promise<string[]> =>
    (
      await queryRows<{ status: string }>(stack.dataSource, 'SELECT status FROM webhooks.deliveries WHERE endpoint_id = $1 ORDER BY id', [
        endpointId,
      ])
    ).map((r) => r.status);
  const eventIdOf = (request: ReceivedRequest) => request.headers['x-svc-event-id'];

  beforeAll(async () => {
    ({ ca, receiver, stack } = await startReceivingStack(['events-api', 'webhook-dispatcher'], {
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE_MS.map((ms) => `${ms / 1000}s`).join(','),
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(PER_ENDPOINT),
    }));
    ({ producer, relay } = await startProducer(stack));
  }, 90_000);

  afterAll(() => closeAll(relay, producer, stack, receiver, ca));

  it("delivers a chat event through the whole pipeline, with the feed's id and a body equal to the feed's event", async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    await producer.emit('handover.created', account.accountId, 7);
    const [request] = await receiver.waitFor(endpoint.path, 1, 30_000);
    const feedResponse = await stack.call('/events?after=0', { key: account.key });
    const { events } = (await feedResponse.json()) as { events: PublicEvent[] };
    expect(events).toHaveLength(1);
    expect(JSON.parse(request!.body.toString('utf8'))).toEqual(events[0]);
    expect(request!.headers['x-svc-event-id']).toBe(String(events[0]!.id));
    expect(request!.headers['x-svc-event']).toBe('handover.created');
  });

  it('signs each delivery so that the library and a plain node:crypto HMAC both verify it, with the exact headers', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    const event = sampleEvent('consent.granted');
    await feed(account, [event]);
    const [request] = await receiver.waitFor(endpoint.path, 1);
    const { headers, body } = request!;
    expect(request!.method).toBe('POST');
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-svc-event']).toBe('consent.granted');
    expect(headers['x-svc-event-id']).toBe(String(event.id));
    const timestamp = headers['x-svc-timestamp'] as string;
    expect(timestamp).toMatch(/^\d+$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(10);
    const signature = headers['x-svc-signature'] as string;
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(body, headers, endpoint.secret)).toEqual(event);
    const independent = Buffer.from(
      `sha256=${createHmac('sha256', Buffer.from(endpoint.secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex')}`,
    );
    expect(timingSafeEqual(independent, Buffer.from(signature))).toBe(true);
    expect(() => verify(body, headers, `${endpoint.secret}x`)).toThrow('no signature matches');
    expect(body.equals(Buffer.from(JSON.stringify(event), 'utf8'))).toBe(true);
  });

  it('sends an endpoint only the kinds it chose, every kind to one without a list, nothing to another account', async () => {
    const account = await stack.newAccount();
    const chosen = await register(account, ['message.sent', 'consent.withdrawn']);
    const everything = await register(account);
    const foreign = await register(await stack.newAccount());
    const events = [
      sampleEvent('message.sent'),
      sampleEvent('handover.created'),
      sampleEvent('consent.withdrawn'),
      sampleEvent('contact.confirmed'),
    ];
    await feed(account, events);
    await receiver.waitFor(everything.path, 4);
    await receiver.waitFor(chosen.path, 2);
    await sleep(500);
    expect(
      receiver
        .received(chosen.path)
        .map((r) => r.headers['x-svc-event'])
        .sort(),
    ).toEqual(['consent.withdrawn', 'message.sent']);
    expect(receiver.received(everything.path)).toHaveLength(4);
    expect(receiver.received(foreign.path)).toHaveLength(0);
  });

  it('delivers a redelivered recorded event once', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    const event = sampleEvent();
    await feed(account, [event, event, event]);
    await receiver.waitFor(endpoint.path, 1);
    await sleep(1_000);
    expect(receiver.received(endpoint.path)).toHaveLength(1);
  });

  it('retries a failing receiver after 1, 2, 3, 4, 5, 6 s with the same id and body and a fresh signature, then gives up', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    receiver.respond(endpoint.path, { status: 500, body: 'down for maintenance' });
    const event = sampleEvent('message.sent');
    await feed(account, [event]);
    const requests = await receiver.waitFor(endpoint.path, 7, 40_000);
    await waitFor('the delivery to fail', async () => ((await statusesOf(endpoint.id))[0] === 'failed' ? true : undefined));
    await sleep(2_000);
    expect(receiver.received(endpoint.path)).toHaveLength(7);
    for (const request of requests) {
      expect(eventIdOf(request)).toBe(String(event.id));
      expect(request.body.equals(requests[0]!.body)).toBe(true);
      expect(verify(request.body, request.headers, endpoint.secret)).toMatchObject({ id: event.id });
    }
    const gaps = requests.slice(1).map((r, i) => r.receivedAt - requests[i]!.receivedAt);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE_MS[i]! - 50);
      expect(gap).toBeLessThan(SCHEDULE_MS[i]! + 1_000);
    });
    expect(new Set(requests.map((r) => r.headers['x-svc-timestamp'])).size).toBeGreaterThan(1);
    const attempts = await attemptsOf(endpoint.id);
    expect(attempts.map((a) => [a.status_code, a.error, a.response_body])).toEqual(
      Array(7).fill([500, 'answered 500', 'down for maintenance']),
    );
  }, 60_000);

  it('ends the delivery at the first 2xx after failures', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    receiver.respond(endpoint.path, { status: 503 });
    await feed(account, [sampleEvent()]);
    await receiver.waitFor(endpoint.path, 2);
    receiver.respond(endpoint.path, { status: 204 });
    await receiver.waitFor(endpoint.path, 3);
    await waitFor('the delivery to succeed', async () => ((await statusesOf(endpoint.id))[0] === 'delivered' ? true : undefined));
    await sleep(3_500);
    expect(receiver.received(endpoint.path)).toHaveLength(3);
    expect((await attemptsOf(endpoint.id)).map((a) => a.status_code)).toEqual([503, 503, 204]);
  }, 30_000);

  it('does not follow a redirect: it is a failed attempt, retried at the same address', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    const target = `${endpoint.path}-moved`;
    receiver.respond(endpoint.path, { status: 302, location: receiver.url(target) });
    await feed(account, [sampleEvent()]);
    await receiver.waitFor(endpoint.path, 2);
    expect(receiver.received(target)).toHaveLength(0);
    const [first] = await waitFor('the attempt record', async () => {
      const rows = await attemptsOf(endpoint.id);
      return rows.length > 0 ? rows : undefined;
    });
    expect(first).toMatchObject({ status_code: 302, error: `answered 302 (to ${receiver.url(target)}); redirects are not followed` });
  });

  it('gives up an attempt after WEBHOOK_TIMEOUT_MS and retries it', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    receiver.respond(endpoint.path, { delayMs: 5_000 });
    await feed(account, [sampleEvent()]);
    const [first, second] = await receiver.waitFor(endpoint.path, 2);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(TIMEOUT_MS + SCHEDULE_MS[0]! - 50);
    const [attempt] = await attemptsOf(endpoint.id);
    expect(attempt).toMatchObject({ status_code: null, error: `no answer within ${TIMEOUT_MS} ms` });
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(attempt!.duration_ms).toBeLessThan(TIMEOUT_MS + 1_000);
  });

  it('keeps delivering to other endpoints while a receiver hangs', async () => {
    const account = await stack.newAccount();
    const hanging = await register(account);
    const healthy = await register(account);
    receiver.respond(hanging.path, { delayMs: 60_000 });
    const events = Array.from({ length: 3 * CONCURRENCY }, () => sampleEvent());
    const started = Date.now();
    await feed(account, events);
    const delivered = await receiver.waitFor(healthy.path, events.length, 10_000);
    // Without a per-endpoint cap the hanging receiver would hold every worker for TIMEOUT_MS at a time.
    expect(Math.max(...delivered.map((r) => r.receivedAt)) - started).toBeLessThan(TIMEOUT_MS);
    expect(receiver.received(hanging.path).length).toBeLessThanOrEqual(PER_ENDPOINT);
  });

  it('records every attempt: when, status, duration, and the start of the answer', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    const large = await register(account);
    receiver.respond(endpoint.path, { status: 201, body: 'thanks' });
    receiver.respond(large.path, { status: 200, body: 'x'.repeat(100 * 1024) });
    const before = new Date();
    await feed(account, [sampleEvent()]);
    const [attempt] = await waitFor('the attempt record', async () => {
      const rows = await attemptsOf(endpoint.id);
      return rows.length > 0 ? rows : undefined;
    });
    expect(attempt).toMatchObject({ status_code: 201, error: null, response_body: 'thanks' });
    expect(Date.parse(attempt!.started_at)).toBeGreaterThanOrEqual(before.getTime() - 1_000);
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(0);
    const [largeAttempt] = await waitFor('the large answer record', async () => {
      const rows = await attemptsOf(large.id);
      return rows.length > 0 ? rows : undefined;
    });
    expect(largeAttempt).toMatchObject({ status_code: 200, error: null, response_body: 'x'.repeat(4096) });
    expect(await statusesOf(large.id)).toEqual(['delivered']);
  });

  it('stops the pending deliveries of an endpoint when it is deleted', async () => {
    const account = await stack.newAccount();
    const endpoint = await register(account);
    receiver.respond(endpoint.path, { status: 500 });
    await feed(account, [sampleEvent(), sampleEvent()]);
    await receiver.waitFor(endpoint.path, 2);
    await waitFor('the attempts to be recorded', async () => ((await attemptsOf(endpoint.id)).length === 2 ? true : undefined));
    expect((await stack.call(`/webhooks/${endpoint.id}`, { method: 'DELETE', key: account.key })).status).toBe(204);
    expect(await statusesOf(endpoint.id)).toEqual(['cancelled', 'cancelled']);
    await sleep(SCHEDULE_MS[0]! + 1_500);
    expect(receiver.received(endpoint.path)).toHaveLength(2);
  });
});
