import { ErrorBody } from '@svc/contracts';
import { createDataSource, queryOne, queryRows } from '@svc/persistence';
import { adminUserCreate, freePort, PrivatePostgres, Stack, startStack, waitFor } from '@svc/testing';
import { CONSOLE_SCHEMA } from './migrations';

const PASSWORD = 'correct horse battery staple';

/**
 * The console's PostgreSQL (a private server, shared with the gateway in front of it) is stopped
 * while a member is signed in: its API answers 503 `unavailable` with Retry-After, never a 500;
 * its pages (a static single-page app) still load; once the database is back the same calls work
 * without restarting anything, and the sign-in made before the outage is still valid (sessions
 * live in PostgreSQL and survive its restart). And stopped in the middle of a sign-in: it fails
 * closed and leaves nothing half-written.
 */
describe('console while its PostgreSQL is down (a private server, stopped and started)', () => {
  let server: PrivatePostgres;
  let stack: Stack;
  let appUrl: string;
  let cookie: string;
  let csrf: string;

  const api = (path: string, init: { method?: string; json?: unknown; cookie?: string } = {}) =>
    fetch(`${appUrl}/console/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.cookie === undefined ? { cookie } : init.cookie ? { cookie: init.cookie } : {}),
        'x-csrf-token': csrf,
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  const signIn = () => api('/sign-in', { method: 'POST', cookie: '', json: { email: 'ana@outage.example', password: PASSWORD } });
  /** The calls a member's page makes: who is signed in, the team, a new member, a sign-in. */
  const calls = () => [
    api('/session'),
    api('/members'),
    api('/members', { method: 'POST', json: { email: 'ben@outage.example' } }),
    signIn(),
  ];

  beforeAll(async () => {
    server = await PrivatePostgres.create();
    const gatewayPort = String(await freePort());
    appUrl = `http://127.0.0.1:${gatewayPort}`;
    stack = await startStack(['console'], {
      databaseServerUrl: server.serverUrl,
      env: { APP_URL: appUrl },
      appEnv: { gateway: { PORT: gatewayPort } },
      startTimeoutMs: 60_000,
    });
    // `admin user create`, as an operator runs it, then the member sets a password (and is signed in).
    const run = adminUserCreate(stack, 'ana@outage.example');
    expect(run.status).toBe(0);
    const token = new URL((JSON.parse(run.stdout) as { sign_in_url: string }).sign_in_url).searchParams.get('token');
    const set = await api('/set-password', { method: 'POST', cookie: '', json: { token, password: PASSWORD } });
    expect(set.status).toBe(200);
    cookie = (set.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    csrf = ((await (await api('/session')).json()) as { csrf_token: string }).csrf_token;
  }, 180_000);

  afterAll(async () => {
    await server?.destroyAfter(stack);
  }, 120_000);

  it('answers 503 unavailable with Retry-After (never a 500) while PostgreSQL is down, serves its pages, and works again once it is back, with the same sign-in', async () => {
    expect((await api('/members')).status).toBe(200);
    const page = await fetch(`${appUrl}/inbox`);
    expect(page.status).toBe(200);
    const script = /\/assets\/[^"]+\.js/.exec(await page.text())?.[0];
    expect(script).toBeDefined();

    await server.stop();
    try {
      for (const response of await Promise.all(calls())) {
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(await response.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
      }
      // The front end is static: the page and its script load without the database.
      for (const path of ['/inbox', '/sign-in', script ?? '']) expect((await fetch(`${appUrl}${path}`)).status).toBe(200);
    } finally {
      await server.start();
    }

    // Back without a restart: the pool reconnects at the next call, and the session made before the outage still holds.
    const session = await waitFor('the console to answer again', async () => {
      const response = await api('/session');
      return response.status === 200 ? ((await response.json()) as { user: { email: string }; csrf_token: string }) : undefined;
    });
    expect(session.user.email).toBe('ana@outage.example');
    expect(session.csrf_token).toBe(csrf);
    const [, members, invited, signedIn] = await Promise.all(calls());
    expect(members?.status).toBe(200);
    expect(invited?.status).toBe(201);
    expect(signedIn?.status).toBe(200);
    const list = (await (await api('/members')).json()) as { members: Array<{ email: string }> };
    expect(list.members.map((m) => m.email).sort()).toEqual(['ana@outage.example', 'ben@outage.example']);
    expect(stack.services['console']?.output()).not.toMatch(/unhandled error/);
  });

  it('answers a request without a cookie as before: 401, even while PostgreSQL is down (no lookup is needed)', async () => {
    await server.stop();
    try {
      const response = await api('/members', { cookie: '' });
      expect(response.status).toBe(401);
      expect(((await response.json()) as ErrorBody).error.code).toBe('unauthorized');
    } finally {
      await server.start();
    }
  });

  it('PostgreSQL stopped in the middle of a sign-in (its session being written): 503 in the error shape, nothing written; then sign-in works', async () => {
    const db = await createDataSource({
      schema: CONSOLE_SCHEMA,
      url: stack.env['DATABASE_URL'] ?? '',
      migrations: [],
      poolSize: 2,
    }).initialize();
    const sessions = async () =>
      (
        await queryOne<{ n: number }>(
          db,
          'SELECT count(*)::int AS n FROM console.sessions s JOIN console.people p ON p.id = s.person_id WHERE p.email = $1',
          ['ana@outage.example'],
        )
      )?.n;
    const before = await sessions();
    // Ana's person row is locked, so the sign-in stops where it writes its session (after the password check).
    const lock = db.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await queryRows(lock, 'SELECT id FROM console.people WHERE email = $1 FOR UPDATE', ['ana@outage.example']);
    const pending = signIn();
    try {
      await waitFor('the sign-in to wait while writing its session', async () =>
        (
          await queryOne<{ n: number }>(
            db,
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO console.sessions%'",
          )
        )?.n === 1
          ? true
          : undefined,
      );
      await server.stop();
      const response = await pending;
      expect(response.status).toBe(503);
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(await response.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
    } finally {
      await server.start();
      await lock.release().catch(() => undefined);
      await db.destroy().catch(() => undefined);
    }

    const after = await createDataSource({
      schema: CONSOLE_SCHEMA,
      url: stack.env['DATABASE_URL'] ?? '',
      migrations: [],
      poolSize: 1,
    }).initialize();
    try {
      // Nothing of that sign-in was written: no session (its attempt stays counted: it failed closed).
      expect(
        (
          await queryOne<{ n: number }>(
            after,
            'SELECT count(*)::int AS n FROM console.sessions s JOIN console.people p ON p.id = s.person_id WHERE p.email = $1',
            ['ana@outage.example'],
          )
        )?.n,
      ).toBe(before);
    } finally {
      await after.destroy();
    }
    const again = await waitFor('sign-in to work again', async () => {
      const response = await signIn();
      return response.status === 200 ? response : undefined;
    });
    expect(again.headers.get('set-cookie')).toMatch(/^svc_console=/);
    expect(stack.services['console']?.output()).not.toMatch(/unhandled error/);
  });
});
