import { Body, Controller, DynamicModule, Get, Module, Param, Put, Query } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AccountsRepository, displayPrefix, generateApiKey, hashApiKey } from '@svc/accounts';
import { ErrorBody, GatewayContext } from '@svc/contracts';
import {
  baseConfigSpec,
  Caller,
  createApp,
  createLogger,
  GATEWAY_CONTEXT_HEADER,
  InternalAuth,
  internalAuthConfigSpec,
  InternalCallers,
  loadConfig,
  PlatformModule,
  port,
} from '@svc/platform';
import {
  accountsFor,
  createTestDatabase,
  freePort,
  internalKeysEnv,
  PrivateRedis,
  RunningApp,
  startApp,
  startPrivateRedis,
  TestDatabase,
  waitFor,
} from '@svc/testing';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, IncomingMessage, request as httpRequest } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ROUTES } from './proxy/route-table';

/** Every app's keys: the gateway signs with its own, the stub service and the gateway verify with the public ones. */
const KEYS = internalKeysEnv();

const errorCode = async (response: Response) => ((await response.json()) as ErrorBody).error.code;

/** A request whose path is sent exactly as given (fetch would resolve dot segments first). */
async function rawGet(base: RunningApp, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const request = httpRequest({ host: '127.0.0.1', port: base.port, path, headers });
  request.end();
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return { status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined };
}

/** A well-formed key nobody was given, in the format made before the checksum (so it is looked up). */
const guessedKey = () => `svc_cust_${randomBytes(32).toString('base64url')}`;

/** A service behind the gateway, built with the platform like the real ones. */
@Controller('contacts')
@InternalCallers('gateway')
class StubContactsController {
  @Get(':ref')
  async get(
    @Caller() caller: GatewayContext,
    @Param('ref') ref: string,
    @Query('delay_ms') delay?: string,
    @Query('pad_bytes') pad?: string,
  ): Promise<object> {
    if (delay) await sleep(Number(delay));
    return pad ? { ref, caller, pad: 'x'.repeat(Number(pad)) } : { ref, caller };
  }

  @Put(':ref')
  put(@Param('ref') ref: string, @Body() body: object): object {
    return { ref, body };
  }
}

@Module({})
class StubModule {}

const stubSpec = { ...baseConfigSpec, ...internalAuthConfigSpec, PORT: port() };

async function startStub(): Promise<{ app: NestFastifyApplication; url: string }> {
  const config = loadConfig(stubSpec, { ...KEYS, PORT: String(await freePort()), LOG_LEVEL: 'silent' });
  const logger = createLogger('stub', 'silent');
  const module = (): DynamicModule => ({
    module: StubModule,
    imports: [PlatformModule.forRoot({ config, logger, name: 'contacts-api', behindGateway: true })],
    controllers: [StubContactsController],
  });
  const app = await createApp({ name: 'stub', configSpec: stubSpec, module }, config, logger);
  await app.listen({ port: config.PORT, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${config.PORT}` };
}

describe('gateway (processes, real PostgreSQL and Redis)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let accounts: Awaited<ReturnType<typeof accountsFor>>['accounts'];
  let stub: Awaited<ReturnType<typeof startStub>>;
  let gateway: RunningApp;
  let twin: RunningApp;
  let scale: { accountId: string; key: string };
  let growthKey: string;
  // The suite's own Redis: its write counts stay apart from other suites'.
  let redis: PrivateRedis;

  const env = () => ({
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    ...KEYS,
    CONTACTS_API_URL: stub.url,
    KNOWLEDGE_API_URL: 'http://127.0.0.1:9',
    EVENTS_API_URL: 'http://127.0.0.1:9',
    CONSOLE_URL: 'http://127.0.0.1:9',
  });
  const call = (base: RunningApp, path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(`${base.url}/api/v1${path}`, {
      ...init,
      headers: { ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...(init.headers as Record<string, string>) },
    });
  const newKey = async () => (await accounts.createKey(scale.accountId)).apiKey;
  const put = (base: RunningApp, key: string, ref = 'c-1') =>
    call(base, `/contacts/${ref}`, { method: 'PUT', key, headers: { 'content-type': 'application/json' }, body: '{"name":"Ada"}' });

  beforeAll(async () => {
    redis = await startPrivateRedis();
    db = await createTestDatabase();
    ({ accounts, dataSource } = await accountsFor(db.url));
    const created = await accounts.createAccount('Acme', 'scale');
    scale = { accountId: created.account.id, key: created.apiKey };
    growthKey = (await accounts.createAccount('Small', 'growth')).apiKey;
    stub = await startStub();
    [gateway, twin] = await Promise.all([startApp('gateway', { ...env(), LOG_LEVEL: 'info' }), startApp('gateway', env())]);
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(), twin?.stop()]);
    await stub?.app.close();
    await dataSource?.destroy();
    await db?.drop();
    await redis?.stop();
  });

  describe('401 before anything else', () => {
    it.each([
      ['no Authorization header', undefined],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['a key with the wrong prefix', `Bearer sk_live_${'a'.repeat(43)}`],
      ['an unknown key', `Bearer svc_cust_${'A'.repeat(43)}`],
      ['a malformed bearer', 'Bearer'],
    ])('refuses %s with 401 unauthorized in the error shape', async (_, authorization) => {
      const response = await fetch(`${gateway.url}/api/v1/whoami`, { headers: authorization ? { authorization } : {} });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    });

    it('answers 401 (not 404, not 415) to an unauthenticated call of any shape', async () => {
      expect((await call(gateway, '/no-such-route')).status).toBe(401);
      expect((await call(gateway, '/contacts/x', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(
        401,
      );
    });

    it('refuses a revoked key within 5 seconds, on every gateway process', async () => {
      const { key, apiKey } = await accounts.createKey(scale.accountId);
      expect((await call(gateway, '/whoami', { key: apiKey })).status).toBe(200);
      expect((await call(twin, '/whoami', { key: apiKey })).status).toBe(200);
      const revokedAt = Date.now();
      await accounts.revokeKey(key.id);
      let refusedBoth = false;
      while (!refusedBoth && Date.now() - revokedAt < 6000) {
        const statuses = await Promise.all([call(gateway, '/whoami', { key: apiKey }), call(twin, '/whoami', { key: apiKey })]);
        refusedBoth = statuses.every((r) => r.status === 401);
        if (!refusedBoth) await sleep(100);
      }
      expect(refusedBoth).toBe(true);
      expect(Date.now() - revokedAt).toBeLessThan(5000);
    });
  });

  describe('402 for accounts outside the Scale plan', () => {
    const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, 'x');
    it.each([{ method: 'GET', path: '/whoami' }, ...ROUTES])('$method $path → 402 plan_required', async ({ method, path }) => {
      const response = await call(gateway, concrete(path), {
        method,
        key: growthKey,
        ...(method === 'GET' || method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
      });
      expect(response.status).toBe(402);
      expect(await errorCode(response)).toBe('plan_required');
    });

    it('applies a plan change within 5 seconds', async () => {
      const created = await accounts.createAccount('Upgrader', 'starter');
      expect((await call(gateway, '/whoami', { key: created.apiKey })).status).toBe(402);
      const changedAt = Date.now();
      await accounts.setPlan(created.account.id, 'scale');
      let status = 402;
      while (status !== 200 && Date.now() - changedAt < 6000) {
        status = (await call(gateway, '/whoami', { key: created.apiKey })).status;
        if (status !== 200) await sleep(100);
      }
      expect(status).toBe(200);
      expect(Date.now() - changedAt).toBeLessThan(5000);
    });
  });

  describe('guessed keys: refused cheaply, never holding up a valid key', () => {
    let trusting: RunningApp;
    let direct: RunningApp;
    // A console that answers with the client address it was told.
    const consoleStub = createServer((request, response) =>
      response.end(JSON.stringify({ forwarded: request.headers['x-forwarded-for'] })),
    );
    // Client addresses (each its own /64, documentation range) of this run only.
    const address = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;
    const from = (base: RunningApp, ip: string, key: string) => call(base, '/whoami', { key, headers: { 'x-forwarded-for': ip } });
    const unauthorized = { error: { code: 'unauthorized', message: expect.any(String) } };

    beforeAll(async () => {
      consoleStub.listen(0, '127.0.0.1');
      await once(consoleStub, 'listening');
      const consoleEnv = { ...env(), CONSOLE_URL: `http://127.0.0.1:${(consoleStub.address() as AddressInfo).port}` };
      [trusting, direct] = await Promise.all([
        startApp('gateway', { ...consoleEnv, TRUST_PROXY: 'loopback' }),
        startApp('gateway', consoleEnv),
      ]);
    });
    afterAll(async () => {
      await Promise.all([trusting?.stop(), direct?.stop()]);
      consoleStub.close();
    });

    it('serves a new valid key, and a key made before the checksum, after 30 guessed keys from the same address sent at once', async () => {
      const guesser = address();
      // Both formats of guess: made before the checksum (always looked up) and current ones with a checksum that matches.
      const guesses = Array.from({ length: 30 }, (_, i) => (i % 2 ? guessedKey() : generateApiKey()));
      const refused = await Promise.all(guesses.map((key) => from(trusting, guesser, key)));
      expect(refused.map((r) => r.status)).toEqual(Array(30).fill(401));
      expect(await refused[0]!.json()).toEqual(unauthorized);
      const again = await Promise.all(guesses.map((key) => from(trusting, guesser, key)));
      expect(again.map((r) => r.status)).toEqual(Array(30).fill(401));

      const fresh = await newKey();
      expect(fresh).toMatch(/^svc_cust_[0-9A-Za-z]{49}$/);
      const served = await from(trusting, guesser, fresh);
      expect(served.status).toBe(200);
      expect(((await served.json()) as { account: { id: string } }).account.id).toBe(scale.accountId);

      const legacy = guessedKey();
      await new AccountsRepository(dataSource).insertKey(scale.accountId, displayPrefix(legacy), hashApiKey(legacy));
      expect((await from(trusting, guesser, legacy)).status).toBe(200);
      expect((await from(gateway, guesser, legacy)).status).toBe(200);
    });

    it('refuses a mistyped key (its checksum does not match) with 401 in the error shape', async () => {
      const key = await newKey();
      const typo = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
      const response = await call(gateway, '/whoami', { key: typo });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual(unauthorized);
      expect((await call(gateway, '/whoami', { key })).status).toBe(200);
    });

    it('tells the console and the chat the client address from X-Forwarded-For only behind TRUST_PROXY', async () => {
      const client = address();
      const told = async (base: RunningApp) =>
        ((await (await fetch(`${base.url}/team`, { headers: { 'x-forwarded-for': client } })).json()) as { forwarded: string }).forwarded;
      expect(await told(trusting)).toBe(client);
      expect(await told(direct)).toBe('127.0.0.1');
    });
  });

  describe('write limits', () => {
    it('accepts 120 writes in a minute, refuses the 121st with Retry-After, and sends RateLimit headers', async () => {
      const key = await newKey();
      const responses = await Promise.all(Array.from({ length: 120 }, (_, i) => put(gateway, key, `r-${i}`)));
      expect(responses.map((r) => r.status)).toEqual(Array(120).fill(200));
      expect(responses[0]!.headers.get('ratelimit-limit')).toBe('120');
      expect(Math.min(...responses.map((r) => Number(r.headers.get('ratelimit-remaining'))))).toBe(0);
      const refused = await put(gateway, key);
      expect(refused.status).toBe(429);
      expect(await errorCode(refused)).toBe('rate_limited');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Reads are not limited.
      expect((await call(gateway, '/whoami', { key })).status).toBe(200);
    });

    it('never accepts more than 120 across two gateway processes', async () => {
      const key = await newKey();
      const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => put(i % 2 ? gateway : twin, key, `t-${i}`)));
      expect(responses.filter((r) => r.status === 200)).toHaveLength(120);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(80);
    });

    it('counts every write whatever X-Request-Id the caller sends: 130 writes with one id → exactly 10 refused', async () => {
      const key = await newKey();
      const responses = await Promise.all(
        Array.from({ length: 130 }, (_, i) =>
          call(gateway, `/contacts/same-${i}`, {
            method: 'PUT',
            key,
            headers: { 'content-type': 'application/json', 'x-request-id': 'same' },
            body: '{}',
          }),
        ),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(120);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(10);
    });

    it('accepts a write sent after Retry-After', async () => {
      const short = await startApp('gateway', { ...env(), WRITE_LIMIT_PER_MINUTE: '5', WRITE_LIMIT_MINUTE_WINDOW_MS: '2500' });
      try {
        const key = await newKey();
        for (let i = 0; i < 5; i += 1) expect((await put(short, key)).status).toBe(200);
        const refused = await put(short, key);
        expect(refused.status).toBe(429);
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(3);
        await sleep(retryAfter * 1000);
        expect((await put(short, key)).status).toBe(200);
      } finally {
        await short.stop();
      }
    });
  });

  describe('bodies, routes and request ids', () => {
    it('415 for a body that is not JSON', async () => {
      const response = await call(gateway, '/contacts/x', {
        method: 'PUT',
        key: scale.key,
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      });
      expect(response.status).toBe(415);
      expect(await errorCode(response)).toBe('unsupported_media_type');
    });

    /** A PUT of `size` bytes by fetch: with Content-Length, or streamed in 64 KiB chunks (chunked: the size shows only as it comes). */
    const sendBody = async (url: string, size: number, chunked: boolean, key: string): Promise<{ status: number; body: unknown }> => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let left = size;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (left <= 0) return controller.close();
          controller.enqueue(chunk.subarray(0, Math.min(left, chunk.length)));
          left -= chunk.length;
        },
      });
      const response = await fetch(url, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(chunked ? { body: stream, duplex: 'half' } : { body: Buffer.alloc(size, 'a') }),
      } as RequestInit);
      return { status: response.status, body: await response.json() };
    };

    it.each([
      ['1 MiB + 1 byte', 2 ** 20 + 1, false],
      ['1 MiB + 1 byte, chunked', 2 ** 20 + 1, true],
      ['20 MiB', 20 * 2 ** 20, false],
      ['20 MiB, chunked', 20 * 2 ** 20, true],
    ])(
      '413 payload_too_large for a body of %s, 30 at once, from the gateway and a service: every one answered, none reset',
      async (_, size, chunked) => {
        // A key of its own: a body refused after the write limiter took it still counts, and 4 × 30 would use up the minute.
        const key = await newKey();
        for (const url of [`${gateway.url}/api/v1/contacts/x`, `${stub.url}/contacts/x`]) {
          const answers = await Promise.all(Array.from({ length: 30 }, () => sendBody(url, size, chunked, key)));
          for (const answer of answers)
            expect(answer).toEqual({ status: 413, body: { error: { code: 'payload_too_large', message: expect.any(String) } } });
        }
      },
      180_000,
    );

    it('400 invalid_json for a body that does not parse', async () => {
      const response = await call(gateway, '/contacts/x', {
        method: 'PUT',
        key: scale.key,
        headers: { 'content-type': 'application/json' },
        body: '{"name":',
      });
      expect(response.status).toBe(400);
      expect(await errorCode(response)).toBe('invalid_json');
    });

    it('404 not_found for an unknown route, 405 with Allow for a wrong method', async () => {
      const missing = await call(gateway, '/nothing-here', { key: scale.key });
      expect(missing.status).toBe(404);
      expect(await errorCode(missing)).toBe('not_found');
      const wrong = await call(gateway, '/contacts/x', {
        method: 'PATCH',
        key: scale.key,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('GET, HEAD, PUT, DELETE');
      expect(await errorCode(wrong)).toBe('method_not_allowed');
    });

    it('400 validation_failed in the error shape for a path the router cannot read', async () => {
      for (const path of ['/contacts/%ZZ', `/contacts/${'a'.repeat(3100)}`]) {
        const response = await call(gateway, path, { key: scale.key });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          error: {
            code: 'validation_failed',
            message: 'The URL path is not valid.',
            details: [{ path: 'path', message: expect.any(String) }],
          },
        });
      }
    });

    describe('one idea of the path: the key check, the route and the service see the same one', () => {
      it('reads escaped unreserved characters as plain ones: GET /%61pi/v1/events needs a key, and with one reaches the feed', async () => {
        expect(await rawGet(gateway, '/%61pi/v1/events')).toEqual({
          status: 401,
          body: { error: { code: 'unauthorized', message: expect.any(String) } },
        });
        expect(await rawGet(gateway, '/api/v1/%65vents', { authorization: 'Bearer nope' })).toMatchObject({ status: 401 });
        // Authenticated, forwarded to events-api, which is down in this suite: 503, not 500.
        expect(await rawGet(gateway, '/%61pi/v1/events', { authorization: `Bearer ${scale.key}` })).toEqual({
          status: 503,
          body: { error: { code: 'unavailable', message: expect.any(String) } },
        });
      });

      it('forwards the canonical path to the service', async () => {
        const { status, body } = await rawGet(gateway, '/%61pi/v1/contact%73/a%7Eb%2Fc?delay_ms=1', {
          authorization: `Bearer ${scale.key}`,
        });
        expect(status).toBe(200);
        expect(body).toMatchObject({ ref: 'a~b/c', caller: { account: { id: scale.accountId } } });
      });

      it.each([
        '/api/v1/%2e%2e/whoami',
        '/api/v1/contacts/%2E%2E',
        '/api/v1/%2e%2e/%61pi/v1/whoami',
        '/api/v1/./whoami',
        '/api/v1/contacts/../whoami',
        '//api/v1',
        '//api/v1/whoami',
        '/api/v1//whoami',
        '/%61pi//v1/events',
      ])('refuses %s with 400 validation_failed, with or without a key', async (path) => {
        const refused = {
          status: 400,
          body: {
            error: {
              code: 'validation_failed',
              message: 'The URL path is not valid.',
              details: [{ path: 'path', message: expect.any(String) }],
            },
          },
        };
        expect(await rawGet(gateway, path)).toEqual(refused);
        expect(await rawGet(gateway, path, { authorization: `Bearer ${scale.key}` })).toEqual(refused);
      });
    });

    it('echoes X-Request-Id, or makes one', async () => {
      const echoed = await call(gateway, '/whoami', { key: scale.key, headers: { 'x-request-id': 'req-123' } });
      expect(echoed.headers.get('x-request-id')).toBe('req-123');
      const made = await call(gateway, '/nothing', {});
      expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  it('GET /whoami describes the account, the key and the app', async () => {
    const response = await call(gateway, '/whoami', { key: scale.key });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      account: { id: scale.accountId, name: 'Acme', plan: 'scale' },
      key: {
        id: expect.any(String),
        prefix: scale.key.slice(0, 13),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      },
      app_url: 'http://localhost:3000',
      widget: expect.stringMatching(/^wgt_[0-9a-f]{32}$/),
    });
  });

  it("GET /internal/widgets/:widget gives the chat a widget's account, only with a signed context", async () => {
    const { widget } = (await (await call(gateway, '/whoami', { key: scale.key })).json()) as { widget: string };
    const lookup = async (id: string, signed: boolean) => {
      const context = await InternalAuth.fromEnv('chat', KEYS).sign('gateway', {
        account: { id: '', name: 'chat', plan: 'scale' },
        keyId: 'chat',
        requestId: 'r-1',
      });
      return fetch(`${gateway.internalUrl}/internal/widgets/${id}`, { headers: signed ? { [GATEWAY_CONTEXT_HEADER]: context } : {} });
    };
    const found = await lookup(widget, true);
    expect(found.status).toBe(200);
    expect(await found.json()).toEqual({ account: { id: scale.accountId, name: 'Acme', plan: 'scale' } });
    expect((await lookup(widget, false)).status).toBe(401);
    expect((await lookup('wgt_00000000000000000000000000000000', true)).status).toBe(404);
    expect((await lookup('not-a-widget', true)).status).toBe(404);
  });

  it('logs one JSON line per call with its request id, route, status and duration; no key, no query string, no probes', async () => {
    await call(gateway, '/whoami', { key: scale.key, headers: { 'x-request-id': 'access-log-1' } });
    await call(gateway, '/nothing-here?email=ada@example.com', { key: scale.key, headers: { 'x-request-id': 'access-log-2' } });
    const linesOf = (requestId: string) =>
      gateway
        .output()
        .split('\n')
        .filter((line) => line.includes(`"request_id":"${requestId}"`))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (let waited = 0; linesOf('access-log-2').length === 0 && waited < 2000; waited += 50) await sleep(50);
    expect(linesOf('access-log-1')).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        app: 'gateway',
        name: 'gateway',
        request_id: 'access-log-1',
        method: 'GET',
        path: '/api/v1/whoami',
        route: '/api/v1/whoami',
        status_code: 200,
        duration_ms: expect.any(Number),
        msg: 'request completed',
      },
    ]);
    // A segment that is not a word of a route (a ref, a typo) is written as its hash.
    expect(linesOf('access-log-2')).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^\/api\/v1\/~[\w-]{16}$/), status_code: 404, msg: 'request completed' }),
    ]);
    expect(linesOf('access-log-2')[0]).not.toHaveProperty('route');
    const output = gateway.output();
    expect(output).not.toContain(scale.key);
    expect(output).not.toContain('ada@example.com');
    expect(output).not.toContain('nothing-here');
    expect(output).not.toContain('"path":"/readyz"');
  });

  describe("requests Node's HTTP parser refuses: the contract's error shape too", () => {
    /** The raw answer to `request` sent on a new connection, read until the server closes it. */
    async function rawAnswer(port: number, request: string): Promise<{ head: string; body: unknown }> {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined); // the server may reset after answering
      socket.write(request);
      let text = '';
      for await (const chunk of socket) text += String(chunk);
      const [head = '', body = ''] = text.split('\r\n\r\n');
      return { head, body: JSON.parse(body) };
    }
    const port = (url: string) => Number(new URL(url).port);

    it.each([
      [
        'a request head over 16 KB',
        431,
        'header_too_large',
        `GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ],
      ['a URL over 16 KB', 431, 'header_too_large', `GET /api/v1/whoami?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
      ['a request that is not HTTP', 400, 'validation_failed', 'HELLO THERE\r\n\r\n'],
      ['a malformed header', 400, 'validation_failed', 'GET /api/v1/whoami HTTP/1.1\r\nHost x\r\n\r\n'],
    ])(
      '%s → %i %s with {"error":{"code","message"}} and a request id, from the gateway and a service',
      async (_, status, code, request) => {
        for (const url of [gateway.url, stub.url]) {
          const { head, body } = await rawAnswer(port(url), request);
          expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
          expect(head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}/i);
          expect(head).toMatch(/\r\ncontent-type: application\/json/i);
          expect(body).toEqual({ error: { code, message: expect.any(String) } });
        }
      },
    );
  });

  describe('proxying', () => {
    it('passes the call and the authenticated account to the owning service', async () => {
      const response = await call(gateway, '/contacts/a%2Fb?delay_ms=1', { key: scale.key, headers: { 'x-request-id': 'trace-1' } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        ref: 'a/b',
        caller: { account: { id: scale.accountId, name: 'Acme', plan: 'scale' }, keyId: expect.any(String), requestId: 'trace-1' },
      });
    });

    it('relays the JSON body untouched', async () => {
      const response = await put(gateway, await newKey());
      expect(await response.json()).toEqual({ ref: 'c-1', body: { name: 'Ada' } });
    });

    it('a service refuses a call that did not come through the gateway', async () => {
      const direct = await fetch(`${stub.url}/contacts/x`);
      expect(direct.status).toBe(401);
      const forged = await fetch(`${stub.url}/contacts/x`, { headers: { 'x-svc-context': 'eyJhbGciOiJIUzI1NiJ9.e30.forged' } });
      expect(forged.status).toBe(401);
    });

    it('answers 503 unavailable quickly when the service is down', async () => {
      const started = Date.now();
      const response = await call(gateway, '/knowledge', { key: scale.key });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it("a console page while the console is down: 503 unavailable in the console's words; the API beside it is untouched", async () => {
      for (const path of ['/', '/inbox/42', '/sign-in']) {
        const response = await fetch(`${gateway.url}${path}`);
        expect(response.status).toBe(503);
        expect(await response.json()).toEqual({
          error: { code: 'unavailable', message: 'The console is temporarily unavailable; retry shortly.' },
        });
      }
      const posted = await fetch(`${gateway.url}/console/v1/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(posted.status).toBe(503);
      expect((await call(gateway, '/whoami', { key: scale.key })).status).toBe(200);
    });
  });

  it('serves the OpenAPI document without a key, and Prometheus metrics by route', async () => {
    const document = (await (await fetch(`${gateway.url}/api/v1/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, { get?: object }>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.paths['/whoami']?.get).toBeDefined();
    await call(gateway, '/whoami', { key: scale.key });
    const metrics = await (await fetch(`${gateway.internalUrl}/metrics`)).text();
    expect(metrics).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/v1/whoami",status_code="200"}');
  });

  it('finishes an in-flight request on SIGTERM, then exits', async () => {
    const draining = await startApp('gateway', env());
    const inFlight = call(draining, '/contacts/slow?delay_ms=1500', { key: scale.key });
    await sleep(300);
    const exited = draining.stop('SIGTERM');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { ref: string }).ref).toBe('slow');
    expect(await exited).toBe('SIGTERM');
    await expect(fetch(`${draining.url}/healthz`)).rejects.toThrow();
  });

  it('cuts a connection still busy SHUTDOWN_TIMEOUT_MS after SIGTERM (a client that stopped reading), then exits', async () => {
    const draining = await startApp('gateway', { ...env(), SHUTDOWN_TIMEOUT_MS: '500' });
    const size = 64 * 1024 * 1024; // far more than the sockets' buffers hold
    const socket = connect(draining.port, '127.0.0.1');
    socket.write(`GET /api/v1/contacts/big?pad_bytes=${size} HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${scale.key}\r\n\r\n`);
    const [first] = (await once(socket, 'data')) as [Buffer];
    socket.pause();
    expect(first.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
    expect(await draining.stop('SIGTERM')).toBe('SIGTERM'); // not SIGKILL: it did not wait for the reader
    expect(draining.output()).toContain('connections still busy after SHUTDOWN_TIMEOUT_MS; closing them');
    let received = first.length;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined); // the cut may arrive as a reset
    socket.resume();
    await once(socket, 'close');
    expect(received).toBeLessThan(size);
  }, 40_000);

  describe('Redis unreachable: reads go on, writes fail closed, /readyz says degraded', () => {
    it('starts without Redis and serves reads', async () => {
      const cut = await startApp('gateway', { ...env(), REDIS_URL: 'redis://127.0.0.1:9' });
      try {
        const response = await fetch(`${cut.url}/readyz`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({
          status: 'degraded',
          degraded: ['redis'],
          checks: { postgres: 'ok', redis: expect.not.stringMatching(/^ok$/) },
        });
        expect((await put(cut, scale.key)).status).toBe(503);
        expect((await call(cut, '/whoami', { key: scale.key })).status).toBe(200);
      } finally {
        await cut.stop();
      }
    });

    it('when its Redis stops: 503 unavailable on writes at once, reads and authentication go on; all back when Redis returns', async () => {
      const own = await startPrivateRedis();
      const app = await startApp('gateway', { ...env(), REDIS_URL: own.url, LOG_LEVEL: 'info' });
      try {
        expect(await (await fetch(`${app.url}/readyz`)).json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
        const key = await newKey();
        expect((await put(app, key)).status).toBe(200);

        // A Redis that holds the connection but answers nothing: 503 after the command timeout.
        own.pause();
        try {
          const started = Date.now();
          const stalled = await put(app, key);
          expect(stalled.status).toBe(503);
          expect(Date.now() - started).toBeLessThan(2500);
          expect((await call(app, '/whoami', { key })).status).toBe(200);
        } finally {
          own.resume();
        }
        await waitFor('writes accepted after the pause', async () => ((await put(app, key)).status === 200 ? true : undefined), 10_000);

        await own.stop();
        const ready = await fetch(`${app.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toEqual({
          status: 'degraded',
          degraded: ['redis'],
          checks: { postgres: 'ok', redis: expect.not.stringMatching(/^ok$/) },
        });
        const started = Date.now();
        const refused = await put(app, key);
        expect(Date.now() - started).toBeLessThan(2000);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(await refused.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
        expect((await call(app, '/contacts/read-on', { key })).status).toBe(200);
        // A key this process has not seen yet: looked up in the database, failures counted in memory.
        expect((await call(app, '/whoami', { key: await newKey() })).status).toBe(200);
        expect((await call(app, '/whoami', { key: guessedKey() })).status).toBe(401);
        expect(app.output()).toContain('Redis unavailable: writes answer 503 until it is back');

        await own.start();
        await waitFor('writes accepted again', async () => ((await put(app, key)).status === 200 ? true : undefined), 15_000);
        expect(await (await fetch(`${app.url}/readyz`)).json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
        expect(app.output()).toContain('Redis available again');
      } finally {
        await app.stop();
        await own.stop();
      }
    }, 60_000);
  });

  it('refuses to boot on an invalid setting, naming it', async () => {
    await expect(startApp('gateway', { ...env(), WRITE_LIMIT_PER_MINUTE: 'many' })).rejects.toThrow(/WRITE_LIMIT_PER_MINUTE/);
  });
});
