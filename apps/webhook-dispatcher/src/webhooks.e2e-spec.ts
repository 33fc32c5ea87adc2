import { CreatedWebhookDto, ErrorBody, WebhookListDto } from '@svc/contracts';
import { createTestCa, HttpsReceiver, RunningApp, Stack, startApp, startStack, TestAccount, TestCa } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { callService, feedEvents, sampleEvent } from '@svc/testing';
import { queryRows } from '@svc/persistence';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const PUBLIC_URL = 'https://93.184.215.14/svc/webhooks';

describe('webhook-dispatcher: endpoints through the gateway (private networks refused)', () => {
  let stack: Stack;
  let ca: TestCa;

  const create = (account: TestAccount, body: unknown) => stack.call('/webhooks', { method: 'POST', key: account.key, json: body });
  const list = async (account: TestAccount) =>
    ((await (await stack.call('/webhooks', { key: account.key })).json()) as WebhookListDto).webhooks;
  const failure = async (response: Response) => ({ status: response.status, ...((await response.json()) as ErrorBody).error });

  beforeAll(async () => {
    ca = createTestCa();
    // The receiver's CA is trusted: only the address check stands between a delivery and 127.0.0.1.
    stack = await startStack(['webhook-dispatcher'], { appEnv: { 'webhook-dispatcher': { WEBHOOK_CA_FILE: ca.caFile } } });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    ca?.remove();
  });

  describe('registration', () => {
    it('answers 201 with id, url, events, the secret, status and created_at; the list never shows the secret', async () => {
      const account = await stack.newAccount();
      const response = await create(account, {
        url: 'https://93.184.215.14/svc/webhooks?source=svc',
        events: ['handover.created', 'consent.withdrawn'],
      });
      expect(response.status).toBe(201);
      const body = (await response.json()) as CreatedWebhookDto;
      expect(Object.keys(body)).toEqual(['id', 'url', 'events', 'secret', 'status', 'disabled_reason', 'created_at']);
      expect(body).toEqual({
        id: expect.any(Number),
        url: 'https://93.184.215.14/svc/webhooks?source=svc',
        events: ['handover.created', 'consent.withdrawn'],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
        status: 'enabled',
        disabled_reason: null,
        created_at: expect.stringMatching(TIMESTAMP),
      });
      const everything = (await (await create(account, { url: PUBLIC_URL })).json()) as CreatedWebhookDto;
      expect(everything.events).toBeNull();
      expect(((await (await create(account, { url: PUBLIC_URL, events: null })).json()) as CreatedWebhookDto).events).toBeNull();
      expect(everything.secret).not.toBe(body.secret);

      const listed = await list(account);
      expect(listed.map((w) => w.id)).toEqual([body.id, everything.id, everything.id + 1]);
      expect(listed[0]).toEqual({
        id: body.id,
        url: body.url,
        events: body.events,
        status: 'enabled',
        disabled_reason: null,
        created_at: body.created_at,
      });
      expect(JSON.stringify(listed)).not.toContain('whsec_');
    });

    it('stores the secret only encrypted', async () => {
      const account = await stack.newAccount();
      const { secret, id } = (await (await create(account, { url: PUBLIC_URL })).json()) as CreatedWebhookDto;
      const [row] = await queryRows<{ secret_sealed: Buffer }>(stack.dataSource, 'SELECT * FROM webhooks.endpoints WHERE id = $1', [id]);
      const stored = JSON.stringify(row) + Buffer.from(row.secret_sealed).toString('latin1');
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice('whsec_'.length));
    });

    it('returns the normalised address it will call', async () => {
      const account = await stack.newAccount();
      const body = (await (await create(account, { url: 'HTTPS://93.184.215.14:443' })).json()) as CreatedWebhookDto;
      expect(body.url).toBe('https://93.184.215.14/');
    });

    it.each([
      ['no url', {}, 'url'],
      ['a url that is not text', { url: 42 }, 'url'],
      ['a url that is not absolute', { url: '/hooks' }, 'url'],
      ['http', { url: 'http://93.184.215.14/hooks' }, 'url'],
      ['another scheme', { url: 'ftp://93.184.215.14/hooks' }, 'url'],
      ['credentials in the url', { url: 'https://user:pass@93.184.215.14/hooks' }, 'url'],
      ['a url over 2,048 characters', { url: `https://93.184.215.14/${'a'.repeat(2049 - 'https://93.184.215.14/'.length)}` }, 'url'],
      ['an empty list of kinds', { url: PUBLIC_URL, events: [] }, 'events'],
      ['an unknown kind', { url: PUBLIC_URL, events: ['message.sent', 'message.deleted'] }, 'events'],
      ['a repeated kind', { url: PUBLIC_URL, events: ['message.sent', 'message.sent'] }, 'events'],
      ['kinds that are not a list', { url: PUBLIC_URL, events: 'message.sent' }, 'events'],
      ['an unknown field', { url: PUBLIC_URL, secret: 'whsec_mine' }, 'secret'],
    ])('refuses %s with 400 validation_failed naming the field, and stores nothing', async (_case, body, path) => {
      const account = await stack.newAccount();
      const problem = await failure(await create(account, body));
      expect(problem).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(problem.details?.map((d) => d.path)).toContain(path);
      expect(await list(account)).toEqual([]);
    });

    it('accepts a url of exactly 2,048 characters', async () => {
      const url = `https://93.184.215.14/${'a'.repeat(2048 - 'https://93.184.215.14/'.length)}`;
      expect(url).toHaveLength(2048);
      expect((await create(await stack.newAccount(), { url })).status).toBe(201);
    });

    it('refuses a body that is not JSON', async () => {
      const account = await stack.newAccount();
      const response = await stack.call('/webhooks', {
        method: 'POST',
        key: account.key,
        headers: { 'content-type': 'application/json' },
        body: '{"url":',
      });
      expect(await failure(response)).toMatchObject({ status: 400, code: 'invalid_json' });
    });
  });

  describe('receivers on non-public addresses', () => {
    let account: TestAccount;
    beforeAll(async () => {
      account = await stack.newAccount();
    });

    it.each([
      ['loopback', 'https://127.0.0.1/x'],
      ['loopback, another address', 'https://127.8.9.10:8443/x'],
      ['loopback written in hex', 'https://0x7f.0.0.1/x'],
      ['private 10/8', 'https://10.0.0.8/x'],
      ['private 172.16/12', 'https://172.20.1.1/x'],
      ['private 192.168/16', 'https://192.168.1.20/x'],
      ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
      ['CGNAT 100.64/10', 'https://100.100.1.1/x'],
      ['0/8', 'https://0.0.0.0/x'],
      ['multicast', 'https://224.0.0.251/x'],
      ['broadcast', 'https://255.255.255.255/x'],
      ['reserved 240/4', 'https://240.1.2.3/x'],
      ['documentation range', 'https://192.0.2.1/x'],
      ['IPv6 loopback', 'https://[::1]/x'],
      ['IPv6 unspecified', 'https://[::]/x'],
      ['IPv6 unique-local', 'https://[fd00::1]/x'],
      ['IPv6 link-local', 'https://[fe80::1]/x'],
      ['IPv6 multicast', 'https://[ff02::1]/x'],
      ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x'],
      ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/x'],
      ['IPv4-mapped link-local', 'https://[::ffff:169.254.169.254]/x'],
      ['IPv4-mapped CGNAT', 'https://[::ffff:100.64.0.1]/x'],
      ['a name that resolves to loopback', 'https://localhost:8443/x'],
      ['a name that does not resolve', 'https://receiver.invalid/x'],
    ])('refuses %s with 400 validation_failed on url', async (_case, url) => {
      const problem = await failure(await create(account, { url }));
      expect(problem).toMatchObject({
        status: 400,
        code: 'validation_failed',
        details: [{ path: 'url', message: expect.stringMatching(/public internet|does not resolve/) }],
      });
    });

    it('stored none of them', async () => {
      expect(await list(account)).toEqual([]);
    });

    it('refuses them in PATCH too, leaving the endpoint as it was', async () => {
      const created = (await (await create(account, { url: PUBLIC_URL })).json()) as CreatedWebhookDto;
      for (const url of ['https://10.0.0.8/x', 'https://[::ffff:127.0.0.1]/x', 'https://localhost:8443/x']) {
        const problem = await failure(await stack.call(`/webhooks/${created.id}`, { method: 'PATCH', key: account.key, json: { url } }));
        expect(problem).toMatchObject({
          status: 400,
          code: 'validation_failed',
          details: [{ path: 'url', message: expect.stringContaining('public internet') }],
        });
      }
      expect(await list(account)).toEqual([
        { id: created.id, url: created.url, events: null, status: 'enabled', disabled_reason: null, created_at: created.created_at },
      ]);
      expect((await stack.call(`/webhooks/${created.id}`, { method: 'DELETE', key: account.key })).status).toBe(204);
    });
  });

  describe('the limit of 10 endpoints', () => {
    it('refuses the 11th with limit_exceeded, and accepts one again after a deletion', async () => {
      const account = await stack.newAccount();
      const created: CreatedWebhookDto[] = [];
      for (let i = 0; i < 10; i += 1) {
        const response = await create(account, { url: `${PUBLIC_URL}/${i}` });
        expect(response.status).toBe(201);
        created.push((await response.json()) as CreatedWebhookDto);
      }
      expect(await failure(await create(account, { url: PUBLIC_URL }))).toMatchObject({ status: 400, code: 'limit_exceeded' });
      expect(await list(account)).toHaveLength(10);
      expect((await stack.call(`/webhooks/${created[3]!.id}`, { method: 'DELETE', key: account.key })).status).toBe(204);
      expect((await create(account, { url: PUBLIC_URL })).status).toBe(201);
      expect(await failure(await create(account, { url: PUBLIC_URL }))).toMatchObject({ status: 400, code: 'limit_exceeded' });
    });

    it('holds under concurrent registration', async () => {
      const account = await stack.newAccount();
      const responses = await Promise.all(Array.from({ length: 16 }, (_, i) => create(account, { url: `${PUBLIC_URL}/${i}` })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([...Array(10).fill(201), ...Array(6).fill(400)]);
      expect(await list(account)).toHaveLength(10);
    });
  });

  describe('deletion', () => {
    it('answers 204, then 404; the endpoint leaves the list', async () => {
      const account = await stack.newAccount();
      const { id } = (await (await create(account, { url: PUBLIC_URL })).json()) as CreatedWebhookDto;
      const response = await stack.call(`/webhooks/${id}`, { method: 'DELETE', key: account.key });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      expect(await list(account)).toEqual([]);
      expect(await failure(await stack.call(`/webhooks/${id}`, { method: 'DELETE', key: account.key }))).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    });

    it("answers 404 for another account's endpoint and leaves it in place", async () => {
      const owner = await stack.newAccount();
      const { id } = (await (await create(owner, { url: PUBLIC_URL })).json()) as CreatedWebhookDto;
      expect(await failure(await stack.call(`/webhooks/${id}`, { method: 'DELETE', key: stack.other.key }))).toMatchObject({
        status: 404,
        code: 'not_found',
      });
      expect(await list(stack.other)).toEqual([]);
      expect((await list(owner)).map((w) => w.id)).toEqual([id]);
    });

    it.each(['abc', '1.5', '-1', '0', '99999999999999999999', '1e3'])('answers 404 for the id %p', async (id) => {
      expect(await failure(await stack.call(`/webhooks/${id}`, { method: 'DELETE', key: stack.account.key }))).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    });
  });

  describe('internal route', () => {
    it('is not reachable through the gateway, and refuses a call without the signed context', async () => {
      expect((await stack.call('/internal/events', { method: 'POST', json: {} })).status).toBe(404);
      const direct = await fetch(`${stack.services['webhook-dispatcher']!.internalUrl}/internal/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(direct.status).toBe(401);
    });

    it('refuses a malformed recorded event with 400', async () => {
      const response = await callService(
        stack.services['webhook-dispatcher']!.internalUrl,
        stack.env,
        stack.account.accountId,
        '/internal/events',
        {
          method: 'POST',
          json: { account_id: stack.account.accountId, event: { id: 'one' } },
        },
      );
      expect(response.status).toBe(400);
    });
  });

  describe('at connect time', () => {
    let receiver: HttpsReceiver;
    let lenient: RunningApp;

    beforeAll(async () => {
      receiver = await HttpsReceiver.start(ca);
      // Registers with private networks allowed and delivers nothing; the stack's process (not allowed) delivers.
      lenient = await startApp('webhook-dispatcher', { ...stack.env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: '0' });
    });

    afterAll(async () => {
      await lenient?.stop();
      await receiver?.close();
    });

    it('refuses to connect to localhost, a loopback literal or its IPv4-mapped form when private networks are not allowed', async () => {
      const account = await stack.newAccount();
      const urls = [receiver.url('/by-name', 'localhost'), receiver.url('/literal'), receiver.url('/mapped', '[::ffff:127.0.0.1]')];
      const ids: number[] = [];
      for (const url of urls) {
        const response = await callService(lenient.url, stack.env, account.accountId, '/webhooks', {
          method: 'POST',
          json: { url },
        });
        expect(response.status).toBe(201);
        ids.push(((await response.json()) as CreatedWebhookDto).id);
      }
      await feedEvents(stack.services['webhook-dispatcher']!.internalUrl, stack.env, account.accountId, [sampleEvent()]);
      const errors = async () =>
        (
          await queryRows<{ error: string }>(
            stack.dataSource,
            'SELECT d.endpoint_id, a.error FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ANY ($1) ORDER BY d.endpoint_id',
            [ids],
          )
        ).map((r) => r.error);
      for (let i = 0; i < 100 && (await errors()).length < 3; i += 1) await sleep(100);
      expect(await errors()).toEqual([
        expect.stringMatching(/localhost \((127\.0\.0\.1|::1)\) is not a public address \(loopback\)/),
        expect.stringContaining('127.0.0.1 is not a public address (loopback)'),
        expect.stringContaining('::ffff:7f00:1 is not a public address (loopback)'),
      ]);
      expect(receiver.requests).toHaveLength(0);

      // A test send goes through the same check.
      const tested = await stack.call(`/webhooks/${ids[1]}/test`, { method: 'POST', key: account.key, json: { event: 'message.sent' } });
      expect(tested.status).toBe(200);
      expect(await tested.json()).toMatchObject({
        delivered: false,
        status_code: null,
        error: expect.stringContaining('127.0.0.1 is not a public address (loopback)'),
      });
      expect(receiver.requests).toHaveLength(0);
    });
  });
});
