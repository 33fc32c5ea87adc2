import {
  CreatedWebhookDto,
  DeliveryDto,
  DeliveryListDto,
  ErrorBody,
  PublicEvent,
  RecoveredDto,
  RotatedSecretDto,
  TestDeliveryDto,
  WebhookEndpointDto,
} from '@svc/contracts';
import { execute, queryRows } from '@svc/persistence';
import {
  closeAll,
  feedEvents,
  HttpsReceiver,
  ReceivedRequest,
  sampleEvent,
  Stack,
  startReceivingStack,
  TestAccount,
  TestCa,
  thrownBy,
  verifyWithPython,
  waitFor,
} from '@svc/testing';
import { verify, WebhookVerificationError } from '@svc/webhook-signing';
import { setTimeout as sleep } from 'node:timers/promises';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
/** Shortened so that an endpoint is disabled within the test. */
const DISABLE_AFTER_MS = 8_000;

/** Why `verify` refused, or undefined when it took the delivery. */
const reasonOf = (run: () => unknown): string | undefined => thrownBy(run, WebhookVerificationError)?.reason;

describe('webhook-dispatcher: managing endpoints and deliveries (resend, recover, test, rotation, auto-disable)', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let stack: Stack;
  let paths = 0;

  const dispatcher = () => stack.services['webhook-dispatcher']!;
  const feed = (account: TestAccount, events: PublicEvent[]) =>
    feedEvents(dispatcher().internalUrl, stack.env, account.accountId, events, 1);
  const call = (account: TestAccount, path: string, init: { method?: string; json?: unknown } = {}) =>
    stack.call(path, { ...init, key: account.key });
  const json = async <T>(response: Response, status: number): Promise<T> => {
    const body = await response.text();
    expect({ status: response.status, body }).toEqual({ status, body: expect.any(String) });
    return JSON.parse(body) as T;
  };
  const failure = async (response: Response) => ({ status: response.status, ...((await response.json()) as ErrorBody).error });
  const register = async (account: TestAccount, path = `/managed-${(paths += 1)}`): Promise<CreatedWebhookDto & { path: string }> => ({
    ...(await json<CreatedWebhookDto>(await call(account, '/webhooks', { method: 'POST', json: { url: receiver.url(path) } }), 201)),
    path,
  });
  const deliveries = async (account: TestAccount, id: number, query = ''): Promise<DeliveryListDto> =>
    json(await call(account, `/webhooks/${id}/deliveries${query}`), 200);
  const endpoint = async (account: TestAccount, id: number): Promise<WebhookEndpointDto> =>
    json(await call(account, `/webhooks/${id}`), 200);
  const statusesOf = async (account: TestAccount, id: number) => (await deliveries(account, id)).deliveries.map((d) => d.status);

  beforeAll(async () => {
    ({ ca, receiver, stack } = await startReceivingStack(['webhook-dispatcher'], {
      // Two attempts: a delivery fails within a second.
      WEBHOOK_RETRY_SCHEDULE: '200ms',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      // One attempt at a time per endpoint: recovered deliveries arrive in the order they are queued.
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1',
      WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS),
    }));
  }, 90_000);

  afterAll(() => closeAll(stack, receiver, ca));

  it('GET and PATCH an endpoint: url, events and status, with the registration rules; 404 for another account', async () => {
    const account = await stack.newAccount();
    const created = await register(account);
    expect(await endpoint(account, created.id)).toEqual({
      id: created.id,
      url: created.url,
      events: null,
      status: 'enabled',
      disabled_reason: null,
      created_at: created.created_at,
    });

    const moved = await json<WebhookEndpointDto>(
      await call(account, `/webhooks/${created.id}`, {
        method: 'PATCH',
        json: { url: receiver.url('/moved'), events: ['handover.created'] },
      }),
      200,
    );
    expect(moved).toEqual({
      ...(await endpoint(account, created.id)),
      url: receiver.url('/moved'),
      events: ['handover.created'],
      status: 'enabled',
    });
    const disabled = await json<WebhookEndpointDto>(
      await call(account, `/webhooks/${created.id}`, { method: 'PATCH', json: { status: 'disabled' } }),
      200,
    );
    expect(disabled).toMatchObject({
      url: receiver.url('/moved'),
      events: ['handover.created'],
      status: 'disabled',
      disabled_reason: 'manual',
    });
    const everything = await json<WebhookEndpointDto>(
      await call(account, `/webhooks/${created.id}`, { method: 'PATCH', json: { status: 'enabled', events: null } }),
      200,
    );
    expect(everything).toMatchObject({ events: null, status: 'enabled', disabled_reason: null });
    expect((await json<{ webhooks: WebhookEndpointDto[] }>(await call(account, '/webhooks'), 200)).webhooks).toEqual([everything]);

    // Bad input: 400 and nothing changes.
    expect(
      await failure(await call(account, `/webhooks/${created.id}`, { method: 'PATCH', json: { url: 'http://example.com/hook' } })),
    ).toMatchObject({
      status: 400,
      code: 'validation_failed',
      details: [{ path: 'url', message: 'url must use https' }],
    });
    expect(
      await failure(await call(account, `/webhooks/${created.id}`, { method: 'PATCH', json: { status: 'paused', events: [] } })),
    ).toMatchObject({
      status: 400,
      code: 'validation_failed',
    });
    // url and status are not nullable (events is: null means every kind).
    for (const [field, message] of [
      ['url', 'url must be a string'],
      ['status', 'status must be enabled or disabled'],
    ]) {
      expect(
        await failure(
          await call(account, `/webhooks/${created.id}`, { method: 'PATCH', json: { [field!]: null, events: ['handover.created'] } }),
        ),
      ).toEqual({ status: 400, code: 'validation_failed', message: expect.any(String), details: [{ path: field, message }] });
    }
    expect(await endpoint(account, created.id)).toEqual(everything);

    // Another account's endpoint, an unknown one and a non-number are all 404 on every route.
    const other = await stack.newAccount();
    for (const id of [String(created.id), '999999', 'abc']) {
      for (const [method, path, body] of [
        ['GET', `/webhooks/${id}`],
        ['PATCH', `/webhooks/${id}`, { status: 'disabled' }],
        ['GET', `/webhooks/${id}/deliveries`],
        ['POST', `/webhooks/${id}/deliveries/1/resend`],
        ['POST', `/webhooks/${id}/recover`, { since: '2026-01-01T00:00:00Z' }],
        ['POST', `/webhooks/${id}/test`, { event: 'message.sent' }],
        ['POST', `/webhooks/${id}/rotate-secret`],
      ] as Array<[string, string, unknown?]>) {
        expect({ method, path, ...(await failure(await call(other, path, { method, ...(body ? { json: body } : {}) }))) }).toMatchObject({
          method,
          path,
          status: 404,
          code: 'not_found',
        });
      }
    }
    expect(await endpoint(account, created.id)).toEqual(everything);
  });

  it('lists deliveries with their attempts (newest last, paged), logs each failed attempt, and a resend arrives with the same id and body and a fresh signature', async () => {
    const account = await stack.newAccount();
    const hook = await register(account);
    receiver.respond(hook.path, { status: 500, body: 'SECRET-ANSWER-TEXT' });
    const event = sampleEvent('message.received');
    await feed(account, [event]);
    await waitFor('the delivery to fail', async () => ((await statusesOf(account, hook.id))[0] === 'failed' ? true : undefined));

    const [failed] = (await deliveries(account, hook.id)).deliveries as [DeliveryDto];
    expect(failed).toEqual({
      id: expect.any(Number),
      event_id: event.id,
      event: 'message.received',
      status: 'failed',
      attempts: [
        { at: expect.stringMatching(TIMESTAMP), status_code: 500, error: 'answered 500', duration_ms: expect.any(Number) },
        { at: expect.stringMatching(TIMESTAMP), status_code: 500, error: 'answered 500', duration_ms: expect.any(Number) },
      ],
      next_attempt_at: null,
      created_at: expect.stringMatching(TIMESTAMP),
    });
    expect(JSON.stringify(failed)).not.toContain('SECRET-ANSWER-TEXT');

    // One log line per failed attempt, without the body, the answer or the secret.
    const lines = dispatcher()
      .output()
      .split('\n')
      .filter((line) => line.includes('webhook attempt failed') && line.includes(`"event_id":"${event.id}"`));
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      endpoint_id: String(hook.id),
      event_id: String(event.id),
      attempt: 1,
      status_code: 500,
      error: 'answered 500',
      duration_ms: expect.any(Number),
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({ attempt: 2, next: 'failed' });
    for (const line of lines) for (const secret of [hook.secret, 'SECRET-ANSWER-TEXT', 'Baker Street']) expect(line).not.toContain(secret);

    // The resend: same event id and body, a fresh timestamp and signature (wait for the next second so the timestamp differs).
    const before = receiver.received(hook.path);
    const lastTimestamp = Number(before.at(-1)!.headers['x-svc-timestamp']);
    while (Math.floor(Date.now() / 1000) <= lastTimestamp) await sleep(50);
    receiver.respond(hook.path, { status: 204 });
    const resent = await json<DeliveryDto>(
      await call(account, `/webhooks/${hook.id}/deliveries/${failed.id}/resend`, { method: 'POST' }),
      202,
    );
    expect(resent).toMatchObject({ id: failed.id, event_id: event.id, status: 'pending' });
    const [, , again] = await receiver.waitFor(hook.path, 3);
    expect(again!.headers['x-svc-event-id']).toBe(String(event.id));
    expect(again!.body.equals(before[0]!.body)).toBe(true);
    expect(again!.headers['x-svc-signature']).not.toBe(before[1]!.headers['x-svc-signature']);
    expect(verify(again!.body, again!.headers, hook.secret)).toEqual(event);
    await waitFor('the resend to be recorded', async () => ((await statusesOf(account, hook.id))[0] === 'delivered' ? true : undefined));
    expect((await deliveries(account, hook.id)).deliveries[0]!.attempts.map((a) => [a.status_code, a.error])).toEqual([
      [500, 'answered 500'],
      [500, 'answered 500'],
      [204, null],
    ]);

    // Pages: oldest first, `next_after` and `more`; `status` filters; bad parameters are 400.
    const more = [sampleEvent('message.sent'), sampleEvent('handover.created')];
    await feed(account, more);
    await waitFor('three deliveries', async () =>
      (await statusesOf(account, hook.id)).filter((s) => s === 'delivered').length === 3 ? true : undefined,
    );
    const first = await deliveries(account, hook.id, '?limit=2');
    expect(first.deliveries.map((d) => d.event_id)).toEqual([event.id, more[0]!.id]);
    expect(first).toMatchObject({ next_after: first.deliveries[1]!.id, more: true });
    const second = await deliveries(account, hook.id, `?limit=2&after=${first.next_after}`);
    expect(second.deliveries.map((d) => d.event_id)).toEqual([more[1]!.id]);
    expect(second).toMatchObject({ next_after: second.deliveries[0]!.id, more: false });
    expect(await deliveries(account, hook.id, `?after=${second.next_after}`)).toEqual({
      deliveries: [],
      next_after: second.next_after,
      more: false,
    });
    expect((await deliveries(account, hook.id, '?status=failed')).deliveries).toEqual([]);
    for (const query of ['?limit=0', '?limit=201', '?after=-1', '?after=x', '?status=cancelled']) {
      expect(await failure(await call(account, `/webhooks/${hook.id}/deliveries${query}`))).toMatchObject({
        status: 400,
        code: 'invalid_parameter',
      });
    }
    // Another endpoint's delivery id, or not a number: 404.
    const elsewhere = await register(account);
    for (const id of [String(failed.id), 'x', '0']) {
      expect(await failure(await call(account, `/webhooks/${elsewhere.id}/deliveries/${id}/resend`, { method: 'POST' }))).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    }
  });

  it('a test send reaches that endpoint only, marked X-SVC-Test with event id 0, not in the feed, and reports the outcome', async () => {
    const account = await stack.newAccount();
    const hook = await register(account);
    const bystander = await register(account);
    const outcome = await json<TestDeliveryDto>(
      await call(account, `/webhooks/${hook.id}/test`, { method: 'POST', json: { event: 'handover.created' } }),
      200,
    );
    expect(outcome).toEqual({ delivered: true, status_code: 200, duration_ms: expect.any(Number), error: null });
    const [request] = receiver.received(hook.path);
    expect(request!.headers).toMatchObject({ 'x-svc-test': '1', 'x-svc-event-id': '0', 'x-svc-event': 'handover.created' });
    expect(verify(request!.body, request!.headers, hook.secret)).toMatchObject({
      id: 0,
      event: 'handover.created',
      data: { reason: expect.any(String) },
    });
    expect(receiver.received(bystander.path)).toEqual([]);
    expect((await deliveries(account, hook.id)).deliveries).toEqual([]);

    receiver.respond(hook.path, { status: 503 });
    expect(
      await json<TestDeliveryDto>(
        await call(account, `/webhooks/${hook.id}/test`, { method: 'POST', json: { event: 'message.sent' } }),
        200,
      ),
    ).toEqual({
      delivered: false,
      status_code: 503,
      duration_ms: expect.any(Number),
      error: 'answered 503',
    });
    expect(
      await failure(await call(account, `/webhooks/${hook.id}/test`, { method: 'POST', json: { event: 'message.deleted' } })),
    ).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(await failure(await call(account, `/webhooks/${hook.id}/test`, { method: 'POST', json: {} }))).toMatchObject({
      status: 400,
      code: 'validation_failed',
    });
  });

  it('rotation: during the overlap every delivery verifies with either secret (package and Python snippet); afterwards with the new one only', async () => {
    const account = await stack.newAccount();
    const hook = await register(account);
    const rotated = await json<RotatedSecretDto>(await call(account, `/webhooks/${hook.id}/rotate-secret`, { method: 'POST' }), 200);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.previous_expires_at).toMatch(TIMESTAMP);
    const overlapMs = Date.parse(rotated.previous_expires_at) - Date.now();
    expect(overlapMs).toBeGreaterThan(23 * 3_600_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3_600_000);
    const [{ sealed }] = await queryRows<{ sealed: Buffer }>(
      stack.dataSource,
      'SELECT previous_secret_sealed AS sealed FROM webhooks.endpoints WHERE id = $1',
      [hook.id],
    );
    expect((sealed as Buffer).includes(Buffer.from(hook.secret))).toBe(false);

    const delivered = async (): Promise<ReceivedRequest> => {
      const event = sampleEvent('consent.granted');
      const seen = receiver.received(hook.path).length;
      await feed(account, [event]);
      const requests = await receiver.waitFor(hook.path, seen + 1);
      const request = requests.find((r) => r.headers['x-svc-event-id'] === String(event.id));
      expect(request).toBeDefined();
      return request!;
    };
    const during = await delivered();
    expect(during.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(during.headers['x-svc-signature-next']).toMatch(/^sha256=[0-9a-f]{64}$/);
    const keys = [hook.secret, rotated.secret, [hook.secret, rotated.secret], 'whsec_not-this-one'];
    for (const secrets of keys.slice(0, 3)) expect(reasonOf(() => verify(during.body, during.headers, secrets))).toBeUndefined();
    expect(verifyWithPython(keys.map((secrets) => ({ secrets, headers: during.headers, body: during.body })))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    // A receiver that reads X-SVC-Signature alone keeps verifying with the old secret.
    expect(reasonOf(() => verify(during.body, { ...during.headers, 'x-svc-signature-next': undefined }, hook.secret))).toBeUndefined();
    expect(reasonOf(() => verify(during.body, during.headers, 'whsec_not-this-one'))).toBe('bad_signature');

    // The overlap ends (moved forward here instead of waiting 24 hours).
    await execute(stack.dataSource, 'UPDATE webhooks.endpoints SET previous_expires_at = now() WHERE id = $1', [hook.id]);
    const after = await delivered();
    expect(after.headers['x-svc-signature-next']).toBeUndefined();
    expect(reasonOf(() => verify(after.body, after.headers, rotated.secret))).toBeUndefined();
    expect(
      verifyWithPython([rotated.secret, hook.secret].map((secrets) => ({ secrets, headers: after.headers, body: after.body }))),
    ).toEqual([true, false]);
    expect(reasonOf(() => verify(after.body, after.headers, hook.secret))).toBe('bad_signature');
  });

  it('an endpoint failing past the disable window is disabled; what it missed stays, and recover sends it in order once it is enabled', async () => {
    const account = await stack.newAccount();
    const hook = await register(account);
    const since = hook.created_at;
    receiver.respond(hook.path, { status: 503 });
    const first = sampleEvent('message.received');
    await feed(account, [first]);
    await waitFor('the first delivery to fail', async () => ((await statusesOf(account, hook.id))[0] === 'failed' ? true : undefined));
    const disabled = await waitFor(
      'the endpoint to be disabled',
      async () => {
        const current = await endpoint(account, hook.id);
        return current.status === 'disabled' ? current : undefined;
      },
      DISABLE_AFTER_MS * 4,
    );
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    // The log line follows the commit: read the process's output until it arrives.
    await waitFor(
      'the log line of the disabling',
      async () => (dispatcher().output().includes('webhook endpoint disabled') ? true : undefined),
      10_000,
    );

    // While it is off: deliveries are recorded failed without an attempt; nothing is sent.
    const attemptsBefore = receiver.received(hook.path).length;
    const missed = [sampleEvent('message.sent'), sampleEvent('handover.created')];
    await feed(account, missed);
    const listed = (await deliveries(account, hook.id)).deliveries;
    expect(listed.map((d) => [d.event_id, d.status, d.attempts.length])).toEqual([
      [first.id, 'failed', 2],
      [missed[0]!.id, 'failed', 0],
      [missed[1]!.id, 'failed', 0],
    ]);
    await sleep(500);
    expect(receiver.received(hook.path)).toHaveLength(attemptsBefore);
    expect(await failure(await call(account, `/webhooks/${hook.id}/recover`, { method: 'POST', json: { since } }))).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    expect(await failure(await call(account, `/webhooks/${hook.id}/deliveries/${listed[0]!.id}/resend`, { method: 'POST' }))).toMatchObject(
      { status: 409, code: 'conflict' },
    );

    // Enabled again, then recovered: all three, in event order.
    receiver.respond(hook.path, { status: 200 });
    expect(
      await json<WebhookEndpointDto>(await call(account, `/webhooks/${hook.id}`, { method: 'PATCH', json: { status: 'enabled' } }), 200),
    ).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
    });
    for (const body of [{}, { since: 'yesterday' }, { since: '2026-11-20T10:00:00' }, { since: 5 }]) {
      expect(await failure(await call(account, `/webhooks/${hook.id}/recover`, { method: 'POST', json: body }))).toMatchObject({
        status: 400,
        code: 'validation_failed',
      });
    }
    expect(await json<RecoveredDto>(await call(account, `/webhooks/${hook.id}/recover`, { method: 'POST', json: { since } }), 202)).toEqual(
      { resent: 3 },
    );
    const requests = (await receiver.waitFor(hook.path, attemptsBefore + 3)).slice(attemptsBefore);
    expect(requests.map((r) => r.headers['x-svc-event-id'])).toEqual([first, ...missed].map((e) => String(e.id)));
    for (const request of requests) expect(reasonOf(() => verify(request.body, request.headers, hook.secret))).toBeUndefined();
    await waitFor('all three delivered', async () =>
      (await statusesOf(account, hook.id)).every((s) => s === 'delivered') ? true : undefined,
    );
    // Nothing failed since now: recover resends nothing.
    expect(await json<RecoveredDto>(await call(account, `/webhooks/${hook.id}/recover`, { method: 'POST', json: { since } }), 202)).toEqual(
      { resent: 0 },
    );
  }, 90_000);
});
