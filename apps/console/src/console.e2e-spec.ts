import { ContactResponseDto, IdentityPassResponseDto, PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import {
  createTestCa,
  embedPage,
  freePort,
  HttpsReceiver,
  launchBrowser,
  PageServer,
  REPO_ROOT,
  servePages,
  Stack,
  startStack,
  storage,
  TestAccount,
  TestBrowser,
  TestCa,
} from '@svc/testing';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';

/** `npm run docs:screenshots` sets it: the walk also refreshes docs/console-*.png. */
const SCREENSHOTS = process.env['CONSOLE_SCREENSHOTS'] === '1';
const PASSWORD = 'correct horse battery staple';

interface Invited {
  user: { id: string; email: string };
  sign_in_url: string;
}

describe('console in real Chromium against the running apps: sign-in, live inbox, reply, Withdraw, keys, webhooks, bookings, analytics', () => {
  // A browser and eight processes on a loaded 2-core machine: generous.
  jest.setTimeout(180_000);
  let stack: Stack;
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let site: PageServer;
  let browser: TestBrowser;
  let console_: Page;
  let appUrl: string;
  let widget: string;
  const pages = new Map<string, { widget: string; identity?: string }>();
  let pageCount = 0;
  /** Every customer message the walk sends (analytics must count exactly these). */
  let customerMessages = 0;

  const widgetOf = async (account: TestAccount): Promise<string> => ((await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto).widget;
  const shopPage = async (settings: { widget: string; identity?: string }): Promise<Page> => {
    const path = `/p/${(pageCount += 1)}`;
    pages.set(path, settings);
    const page = await browser.context.newPage();
    await page.goto(`${site.url}${path}`);
    return page;
  };
  const ask = async (page: Page, text: string) => {
    const launcher = page.getByRole('button', { name: 'Chat', exact: true });
    if ((await launcher.getAttribute('aria-expanded')) !== 'true') await launcher.click();
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    customerMessages += 1;
  };
  const conversationOf = async (page: Page): Promise<number> => {
    const token = await storage.get(page, `svc-chat:${widget}:token`);
    const response = await fetch(`${appUrl}/chat/v1/conversation`, { headers: { authorization: `Bearer ${token}` } });
    return ((await response.json()) as { conversation: { id: number } }).conversation.id;
  };
  const feed = async (): Promise<PublicEvent[]> => {
    const all: PublicEvent[] = [];
    let after = 0;
    for (;;) {
      const page = (await (await stack.call(`/events?after=${after}&limit=200`)).json()) as { events: PublicEvent[]; next_after: number; more: boolean };
      all.push(...page.events);
      after = page.next_after;
      if (!page.more) return all;
    }
  };
  const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const go = async (path: string, title: string | RegExp) => {
    await console_.goto(`${appUrl}${path}`);
    await heading(console_, title).waitFor();
  };
  const shoot = async (name: string) => {
    if (SCREENSHOTS) await console_.screenshot({ path: join(REPO_ROOT, 'docs', `console-${name}.png`), fullPage: true });
  };
  /** `admin user create`, as an operator runs it. */
  const createUser = (accountId: string, email: string): Invited => {
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/apps/admin/src/main.js'), 'user', 'create', '--account', accountId, '--email', email], {
      env: { ...process.env, DATABASE_URL: stack.env['DATABASE_URL'], INTERNAL_AUTH_SECRET: stack.env['INTERNAL_AUTH_SECRET'], CONSOLE_URL: stack.services['console']?.url },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return JSON.parse(run.stdout) as Invited;
  };
  /** A member's session outside the browser (another account's member, for isolation): cookie and CSRF token. */
  const apiSession = async (email: string): Promise<(path: string, init?: { method?: string; json?: unknown }) => Promise<Response>> => {
    const { sign_in_url } = createUser(stack.other.accountId, email);
    const token = new URL(sign_in_url).searchParams.get('token');
    const set = await fetch(`${appUrl}/console/v1/set-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: PASSWORD }) });
    expect(set.status).toBe(200);
    const cookie = (set.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const { csrf_token } = (await (await fetch(`${appUrl}/console/v1/session`, { headers: { cookie } })).json()) as { csrf_token: string };
    return (path, init = {}) =>
      fetch(`${appUrl}/console/v1${path}`, {
        method: init.method ?? 'GET',
        headers: { cookie, 'x-csrf-token': csrf_token, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
  };

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await HttpsReceiver.start(ca);
    const gatewayPort = String(await freePort());
    appUrl = `http://127.0.0.1:${gatewayPort}`;
    stack = await startStack(['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat', 'console'], {
      env: { OUTBOX_POLL_INTERVAL_MS: '200', APP_URL: appUrl },
      appEnv: {
        gateway: { PORT: gatewayPort, AUTH_CACHE_TTL_MS: '2000' },
        chat: { HANDOVER_WAIT: '1h' },
        'webhook-dispatcher': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CA_FILE: ca.caFile, WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '1h,1h,1h,1h,1h,1h' },
        console: { SIGN_IN_FAILURES: '3' },
      },
    });
    widget = await widgetOf(stack.account);
    site = await servePages((request) => {
      const settings = pages.get(request.url ?? '');
      return settings ? embedPage(appUrl, settings, 'A shop') : '<!doctype html><title>none</title>';
    });
    const piece = (ref: string, heading: string, text: string) => stack.call(`/knowledge/${ref}`, { method: 'PUT', json: { heading, text } });
    expect((await piece('returns', 'Returns and refunds', 'You can return any item within 30 days of delivery for a full refund.')).status).toBe(201);
    expect((await piece('tasting', 'Wine tasting evening', 'Our wine tasting evening runs every Friday at 7 pm in the shop; book a seat in the chat.')).status).toBe(201);
    browser = await launchBrowser();
    console_ = await browser.context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await receiver?.close();
    await stack?.stop();
    ca?.remove();
  });

  it('admin user create prints the member and a one-time link; the link sets the password and signs in; sign-out and sign-in work; a used link does not', async () => {
    const invited = createUser(stack.account.accountId, 'ana@shop.example');
    expect(invited).toEqual({ user: { id: expect.any(String), email: 'ana@shop.example' }, sign_in_url: expect.stringMatching(new RegExp(`^${appUrl}/set-password\\?token=[A-Za-z0-9_-]{43}$`)) });

    await console_.goto(invited.sign_in_url);
    await heading(console_, 'Set your password').waitFor();
    await console_.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
    await console_.getByRole('button', { name: 'Set password' }).click();
    await heading(console_, 'Inbox').waitFor();
    const cookie = (await browser.context.cookies(appUrl)).find((c) => c.name === 'svc_console');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    await console_.getByRole('button', { name: 'Sign out' }).click();
    await heading(console_, 'Sign in').waitFor();
    await console_.goto(invited.sign_in_url);
    await console_.getByRole('textbox', { name: 'Password' }).fill('another password 123');
    await console_.getByRole('button', { name: 'Set password' }).click();
    await expect(console_.getByRole('alert').textContent()).resolves.toContain('not valid any more');

    await console_.goto(`${appUrl}/inbox`);
    await heading(console_, 'Sign in').waitFor();
    await console_.getByRole('textbox', { name: 'Email' }).fill('ana@shop.example');
    await console_.getByRole('textbox', { name: 'Password' }).fill('wrong password');
    await console_.getByRole('button', { name: 'Sign in' }).click();
    await expect(console_.getByRole('alert').textContent()).resolves.toContain('not right');
    await console_.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
    await console_.getByRole('button', { name: 'Sign in' }).click();
    await heading(console_, 'Inbox').waitFor();
  });

  it('sign-in is throttled (429 with Retry-After) and a write without the CSRF token is refused', async () => {
    const attempt = () =>
      fetch(`${appUrl}/console/v1/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'nobody@shop.example', password: 'guess' }) });
    for (let i = 0; i < 3; i += 1) expect((await attempt()).status).toBe(401);
    const throttled = await attempt();
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);

    const cookie = (await browser.context.cookies(appUrl)).find((c) => c.name === 'svc_console');
    const forged = await fetch(`${appUrl}/console/v1/keys`, { method: 'POST', headers: { cookie: `svc_console=${cookie?.value}`, 'content-type': 'application/json' }, body: '{}' });
    expect(forged.status).toBe(403);
    const bad = await fetch(`${appUrl}/console/v1/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'x' }) });
    expect(bad.status).toBe(400);
  });
});
