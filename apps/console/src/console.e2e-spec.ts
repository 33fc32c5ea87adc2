import { ChatConversationResponse, ContactResponseDto, IdentityPassResponseDto, PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import {
  closeAll,
  embedPage,
  freePort,
  HttpsReceiver,
  launchBrowser,
  PageServer,
  readFeed,
  REPO_ROOT,
  servePages,
  signInFromLink,
  Stack,
  stackAdmin,
  startReceivingStack,
  storage,
  TestAccount,
  TestBrowser,
  TestCa,
  waitFor,
} from '@svc/testing';
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
  jest.setTimeout(240_000);
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

  const widgetOf = async (account: TestAccount): Promise<string> =>
    ((await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto).widget;
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
  /**
   * The conversation the page's widget holds once it holds the one where `asked` was written, of `customer` (null:
   * anonymous): a browser keeps an earlier page's token until the widget has swapped it for its own session's.
   */
  const conversationOf = (page: Page, asked: string, customer: string | null = null): Promise<number> =>
    waitFor(`the widget's conversation where "${asked}" was asked`, async () => {
      const token = await storage.get(page, `svc-chat:${widget}:token`);
      if (!token) return undefined;
      const response = await fetch(`${appUrl}/chat/v1/conversation`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as ChatConversationResponse;
      const mine = (body.customer?.name ?? null) === customer && body.messages.some((m) => m.text === asked);
      return mine ? body.conversation.id : undefined;
    });
  const feed = (): Promise<PublicEvent[]> => readFeed(stack);
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const go = async (path: string, title: string | RegExp) => {
    await console_.goto(`${appUrl}${path}`);
    await heading(console_, title).waitFor();
  };
  const shoot = async (name: string) => {
    if (SCREENSHOTS) await console_.screenshot({ path: join(REPO_ROOT, 'docs', `console-${name}.png`), fullPage: true });
  };
  /** An `admin` command, as an operator runs it. */
  const admin = (...args: string[]) => stackAdmin(stack, ...args);
  /** `admin user create`, as an operator runs it. */
  const createUser = (accountId: string, email: string): Invited => {
    const run = admin('user', 'create', '--account', accountId, '--email', email);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return JSON.parse(run.stdout) as Invited;
  };
  type ApiSession = (path: string, init?: { method?: string; json?: unknown }) => Promise<Response>;
  /** Calls as the member whose session cookie (`svc_console=…`) this is, with its CSRF token. */
  const sessionApi = async (cookie: string): Promise<ApiSession> => {
    const { csrf_token } = (await (await fetch(`${appUrl}/console/v1/session`, { headers: { cookie } })).json()) as { csrf_token: string };
    return (path, init = {}) =>
      fetch(`${appUrl}/console/v1${path}`, {
        method: init.method ?? 'GET',
        headers: { cookie, 'x-csrf-token': csrf_token, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
  };
  /** A member's session outside the browser (another account's member, for isolation): cookie and CSRF token. */
  const apiSession = async (email: string): Promise<ApiSession> => {
    const { sign_in_url } = createUser(stack.other.accountId, email);
    const token = new URL(sign_in_url).searchParams.get('token');
    const set = await fetch(`${appUrl}/console/v1/set-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: PASSWORD }),
    });
    expect(set.status).toBe(200);
    return sessionApi((set.headers.get('set-cookie') ?? '').split(';')[0] ?? '');
  };
  /** A set-password link used outside the browser: the status and the new session's cookie. */
  const usePasswordLink = async (signInUrl: string, password: string) => {
    const set = await fetch(`${appUrl}/console/v1/set-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(signInUrl).searchParams.get('token'), password }),
    });
    return { status: set.status, cookie: (set.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
  };
  /** Opens the inbox's live stream as this session; `ended` resolves (with the ms it stayed open after `since()`) when it ends. */
  const openInboxStream = async (cookie: string) => {
    const response = await fetch(`${appUrl}/console/v1/inbox/stream`, { headers: { cookie } });
    expect(response.status).toBe(200);
    let mark = Date.now();
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const ended = (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // Cut off: ended too.
      }
      return Date.now() - mark;
    })();
    return {
      ended,
      since: () => (mark = Date.now()),
      stillOpen: () => Promise.race([ended.then(() => false), sleep(1_500).then(() => true)]),
    };
  };
  /** A set-password straight to the console from a client address. */
  const setPasswordFrom = (address: string, signInUrl: string, password: string) =>
    fetch(`${stack.services['console']?.url}/console/v1/set-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ token: new URL(signInUrl).searchParams.get('token'), password }),
    });
  /** The browser's session cookie for the console, as a header. */
  const cookieOf = async (browser_: TestBrowser) =>
    `svc_console=${(await browser_.context.cookies(appUrl)).find((c) => c.name === 'svc_console')?.value ?? ''}`;
  /** A sign-in straight to the console from a client address (as the gateway or Ingress names it in X-Forwarded-For). */
  const signInFrom = (address: string, email: string, password: string) =>
    fetch(`${stack.services['console']?.url}/console/v1/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ email, password }),
    });

  beforeAll(async () => {
    const gatewayPort = String(await freePort());
    appUrl = `http://127.0.0.1:${gatewayPort}`;
    ({ ca, receiver, stack } = await startReceivingStack(
      ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat', 'console'],
      { WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '1h,1h,1h,1h,1h,1h' },
      {
        env: { OUTBOX_POLL_INTERVAL_MS: '200', APP_URL: appUrl },
        startTimeoutMs: 120_000,
        appEnv: {
          gateway: { PORT: gatewayPort, AUTH_CACHE_TTL_MS: '2000' },
          chat: { HANDOVER_WAIT: '1h' },
          console: { SIGN_IN_FAILURES: '3' },
        },
      },
    ));
    widget = await widgetOf(stack.account);
    site = await servePages((request) => {
      const settings = pages.get(request.url ?? '');
      return settings ? embedPage(appUrl, settings, 'A shop') : '<!doctype html><title>none</title>';
    });
    const piece = (ref: string, heading: string, text: string) =>
      stack.call(`/knowledge/${ref}`, { method: 'PUT', json: { heading, text } });
    expect(
      (await piece('returns', 'Returns and refunds', 'You can return any item within 30 days of delivery for a full refund.')).status,
    ).toBe(201);
    expect(
      (
        await piece(
          'tasting',
          'Wine tasting evening',
          'Our wine tasting evening runs every Friday at 7 pm in the shop; book a seat in the chat.',
        )
      ).status,
    ).toBe(201);
    browser = await launchBrowser();
    console_ = await browser.context.newPage();
  }, 600_000);

  afterAll(() => closeAll(browser, site, receiver, stack, ca));

  it('admin user create prints the member and a one-time link; the link sets the password and signs in; sign-out and sign-in work; a used link does not', async () => {
    const invited = createUser(stack.account.accountId, 'ana@shop.example');
    expect(invited).toEqual({
      user: { id: expect.any(String), email: 'ana@shop.example' },
      sign_in_url: expect.stringMatching(new RegExp(`^${appUrl}/set-password\\?token=[A-Za-z0-9_-]{43}$`)),
    });

    await signInFromLink(console_, invited.sign_in_url, PASSWORD);
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
      fetch(`${appUrl}/console/v1/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@shop.example', password: 'guess' }),
      });
    for (let i = 0; i < 3; i += 1) expect((await attempt()).status).toBe(401);
    const throttled = await attempt();
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);

    const cookie = (await browser.context.cookies(appUrl)).find((c) => c.name === 'svc_console');
    const forged = await fetch(`${appUrl}/console/v1/keys`, {
      method: 'POST',
      headers: { cookie: `svc_console=${cookie?.value}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(forged.status).toBe(403);
    const bad = await fetch(`${appUrl}/console/v1/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x' }),
    });
    expect(bad.status).toBe(400);
  });
  it('30 wrong passwords for one member at once: at most SIGN_IN_FAILURES are checked, the rest 429; the member still signs in from another address', async () => {
    const guesses = await Promise.all(Array.from({ length: 30 }, (_, i) => signInFrom('203.0.113.7', 'ana@shop.example', `guess ${i}`)));
    const statuses = guesses.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(27);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    const limited = guesses.find((r) => r.status === 429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited?.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    // The guesser's address stays refused, even with the right password; the member's own address is not.
    expect((await signInFrom('203.0.113.7', 'ana@shop.example', PASSWORD)).status).toBe(429);
    expect((await signInFrom('198.51.100.20', 'ana@shop.example', PASSWORD)).status).toBe(200);
  });

  it('30 guesses at once from 30 addresses of one IPv6 /64 count as one client: at most SIGN_IN_FAILURES are checked', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signInFrom(`2001:db8:7:1::${(i + 1).toString(16)}`, 'ana@shop.example', `guess ${i}`)),
    );
    const statuses = guesses.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(27);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect((await signInFrom('2001:db8:7:1:ffff::1', 'ana@shop.example', PASSWORD)).status).toBe(429);
    expect((await signInFrom('2001:db8:7:2::1', 'ana@shop.example', PASSWORD)).status).toBe(200);
  });

  it('a customer message from the widget appears in the inbox without reload; the reply appears in the widget and as message.sent (author team) in the feed', async () => {
    const started = Date.now();
    await go('/inbox', 'Inbox');
    await console_.getByRole('checkbox', { name: 'Needs a person' }).waitFor();
    // Measured, not asserted (the 1.5 s on this machine is reported in docs/console.md).
    process.stdout.write(`console: the inbox was interactive ${Date.now() - started} ms after navigation\n`);
    const shop = await shopPage({ widget });
    await ask(shop, 'How do I return an item?');
    const conversationId = await conversationOf(shop, 'How do I return an item?');
    // Live, without reload (the link's text is the last message: the question or, by now, the assistant's answer).
    const link = console_.getByRole('list', { name: 'Conversations' }).locator(`a[href="/inbox/${conversationId}"]`);
    await link.waitFor({ timeout: 10_000 });
    await shoot('inbox');

    // The assistant's answer may have replaced the last message shown by now: the link is the conversation's.
    await link.click();
    await heading(console_, /^Conversation with/).waitFor();
    expect(console_.url()).toBe(`${appUrl}/inbox/${conversationId}`);
    await console_.getByRole('log', { name: 'Messages' }).getByText('How do I return an item?').waitFor();
    await console_.getByRole('textbox', { name: 'Reply' }).fill('Hello from the team: happy to help with your return.');
    await console_.getByRole('button', { name: 'Send reply' }).click();
    await shop.getByRole('log').getByText('Hello from the team: happy to help with your return.').waitFor({ timeout: 10_000 });
    await shoot('conversation');
    const sent = await waitFor('message.sent by the team', async () =>
      (await feed()).find(
        (e) => e.event === 'message.sent' && e.data.conversation.id === conversationId && e.data.message.author === 'team',
      ),
    );
    expect(sent.data).toMatchObject({
      message: { text: 'Hello from the team: happy to help with your return.', author: 'team' },
      conversation: { id: conversationId, url: `${appUrl}/inbox/${conversationId}` },
    });
    await shop.close();
  });

  it('Withdraw on an active consent → consent.withdrawn (withdrawn_by team, with the conversation) at a webhook receiver', async () => {
    const registered = await stack.call('/webhooks', {
      method: 'POST',
      json: { url: receiver.url('/consents'), events: ['consent.withdrawn'] },
    });
    expect(registered.status).toBe(201);
    const put = await stack.call('/contacts/c-ada', {
      method: 'PUT',
      json: {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        consents: [
          { purpose: 'future_email', text: 'Yes, send me news by email.', given_at: '2026-11-01T10:00:00.123456Z', source: 'website_form' },
        ],
      },
    });
    expect(put.status).toBe(201);
    expect(((await put.json()) as ContactResponseDto).consents).toHaveLength(1);
    const pass = ((await (await stack.call('/contacts/c-ada/identity', { method: 'POST' })).json()) as IdentityPassResponseDto).token;
    const shop = await shopPage({ widget, identity: pass });
    await ask(shop, 'Please stop sending me emails');
    const conversationId = await conversationOf(shop, 'Please stop sending me emails', 'Ada Lovelace');

    await go(`/inbox/${conversationId}`, /^Conversation with/);
    const panel = console_.getByRole('complementary', { name: 'Customer' });
    await panel.getByRole('button', { name: 'Withdraw' }).click();
    await panel.getByText(/withdrawn .* by team/).waitFor();
    expect(await panel.getByRole('button', { name: 'Withdraw' }).count()).toBe(0);
    const [delivery] = await receiver.waitFor('/consents', 1);
    const event = JSON.parse(delivery?.body.toString('utf8') ?? '{}') as Extract<PublicEvent, { event: 'consent.withdrawn' }>;
    expect(event.event).toBe('consent.withdrawn');
    expect(event.data.consent).toMatchObject({ purpose: 'future_email', withdrawn_by: 'team', active: false });
    expect(event.data.conversation).toEqual({ id: conversationId, channel: 'web', url: `${appUrl}/inbox/${conversationId}` });
    await shop.close();
  });

  it('a key created in the console works on /api/v1/whoami; revoked, it is refused (401) within 5 s', async () => {
    await go('/settings/keys', 'API and MCP keys');
    await console_.getByRole('button', { name: 'Create key' }).click();
    const field = console_.getByRole('textbox', { name: 'New key' });
    await field.waitFor();
    await console_.getByRole('button', { name: 'Copy' }).waitFor();
    const key = await field.inputValue();
    expect(key).toMatch(/^svc_cust_/);
    expect((await stack.call('/whoami', { key })).status).toBe(200);
    const prefix = ((await (await stack.call('/whoami', { key })).json()) as WhoamiResponseDto).key.prefix;
    await console_.getByRole('button', { name: `Revoke ${prefix}` }).click();
    await console_.getByRole('button', { name: `Revoke ${prefix}` }).waitFor({ state: 'detached' });
    const revokedAt = Date.now();
    await waitFor('the revoked key refused', async () => ((await stack.call('/whoami', { key })).status === 401 ? true : undefined), 5_000);
    process.stdout.write(`console: a revoked key was refused ${Date.now() - revokedAt} ms after revocation\n`);
  });

  it("webhooks: register shows the secret once; a failing receiver's attempts are listed with status codes; resend → delivered; a test event of any kind", async () => {
    receiver.respond('/failing', { status: 500 });
    await go('/settings/webhooks', 'Webhooks');
    await console_.getByRole('textbox', { name: 'Endpoint URL' }).fill(receiver.url('/failing'));
    await console_.getByRole('button', { name: 'Register' }).click();
    const secret = await console_.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await console_.reload();
    await heading(console_, 'Webhooks').waitFor();
    await console_.getByRole('link', { name: receiver.url('/failing') }).waitFor();
    expect(await console_.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);
    expect(await console_.content()).not.toContain(secret);

    const shop = await shopPage({ widget });
    await ask(shop, 'Do you ship to Spain?');
    await receiver.waitFor('/failing', 1);
    await console_.getByRole('link', { name: receiver.url('/failing') }).click();
    await heading(console_, 'Webhook endpoint').waitFor();
    await waitFor('an attempt listed with its status code', async () => {
      await console_.getByRole('button', { name: 'Refresh' }).click();
      return (await console_.getByText(/HTTP 500, \d+ ms/).count()) > 0 ? true : undefined;
    });
    await shoot('webhooks');
    receiver.respond('/failing', { status: 204 });
    const before = receiver.received('/failing').length;
    await console_
      .getByRole('button', { name: /^Resend delivery / })
      .first()
      .click();
    await receiver.waitFor('/failing', before + 1);
    await waitFor('the delivery delivered', async () => {
      await console_.getByRole('button', { name: 'Refresh' }).click();
      return (await console_.getByRole('cell', { name: 'delivered', exact: true }).count()) > 0 ? true : undefined;
    });
    await console_.getByRole('combobox', { name: 'Event kind' }).selectOption('handover.created');
    await console_.getByRole('button', { name: 'Send test event' }).click();
    await console_
      .getByRole('status')
      .getByText(/Delivered: 204/)
      .waitFor();
    const test = receiver.received('/failing').at(-1);
    expect(test?.headers['x-svc-test']).toBe('1');
    await shop.close();
  });

  it('a booking requested in the widget is confirmed in the console, and the customer sees it', async () => {
    const shop = await shopPage({ widget });
    await ask(shop, 'When is the wine tasting evening?');
    await shop.getByRole('button', { name: 'Request a booking' }).click();
    await shop.getByLabel('Date and time').fill('2030-05-17T19:00');
    await shop.getByRole('button', { name: 'Send booking request' }).click();
    await shop
      .getByRole('log')
      .getByText(/booking request .* was received/)
      .waitFor();
    await go('/bookings', 'Bookings');
    const confirm = console_.getByRole('button', { name: /^Confirm booking / });
    await confirm.first().click();
    await console_
      .getByRole('cell', { name: /^confirmed/ })
      .first()
      .waitFor();
    await shop
      .getByRole('log')
      .getByText(/is confirmed/)
      .waitFor({ timeout: 10_000 });
    await shop.close();
  });

  it('analytics totals equal the activity the walk created', async () => {
    await go('/analytics', 'Analytics');
    await console_.getByRole('table', { name: /^Figures from/ }).waitFor();
    await waitFor('the analytics', async () => {
      await console_.getByRole('button', { name: 'Show' }).click();
      const total = await console_
        .getByRole('row')
        .filter({ has: console_.getByRole('rowheader', { name: 'Messages: received', exact: true }) })
        .getByRole('cell')
        .first()
        .textContent();
      return total === String(customerMessages) ? true : undefined;
    });
    const team = await console_
      .getByRole('row')
      .filter({ has: console_.getByRole('rowheader', { name: 'Messages: sent by the team', exact: true }) })
      .getByRole('cell')
      .first()
      .textContent();
    expect(team).toBe('1');
    const confirmed = await console_
      .getByRole('row')
      .filter({ has: console_.getByRole('rowheader', { name: 'Bookings confirmed', exact: true }) })
      .getByRole('cell')
      .first()
      .textContent();
    expect(confirmed).toBe('1');
    await shoot('analytics');
  });

  it('the inbox works with the keyboard alone: tab to a conversation, open it, reply', async () => {
    await go('/inbox', 'Inbox');
    const first = console_.getByRole('list', { name: 'Conversations' }).getByRole('link').first();
    await first.waitFor();
    const target = await first.getAttribute('href');
    for (let i = 0; i < 40; i += 1) {
      await console_.keyboard.press('Tab');
      if (
        (await console_.evaluate(() =>
          (
            globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }
          ).document.activeElement?.getAttribute('href'),
        )) === target
      )
        break;
    }
    await console_.keyboard.press('Enter');
    await heading(console_, /^Conversation with/).waitFor();
    const reply = console_.getByRole('textbox', { name: 'Reply' });
    for (
      let i = 0;
      i < 40 &&
      !(await reply.evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement));
      i += 1
    ) {
      await console_.keyboard.press('Tab');
    }
    await console_.keyboard.type('Typed with the keyboard');
    await console_.keyboard.press('Tab');
    await console_.keyboard.press('Enter');
    await console_.getByRole('log', { name: 'Messages' }).getByText('Typed with the keyboard').waitFor();
  });

  it("a member of another account cannot open this account's conversation, delivery or booking by URL or API (404)", async () => {
    const other = await apiSession('bo@other.example');
    const mine = (await (await other('/conversations')).json()) as { conversations: unknown[] };
    expect(mine.conversations).toEqual([]);
    const theirs = await waitFor('a conversation of account A', async () => {
      const cookie = (await browser.context.cookies(appUrl)).find((c) => c.name === 'svc_console');
      const list = (await (
        await fetch(`${appUrl}/console/v1/conversations`, { headers: { cookie: `svc_console=${cookie?.value}` } })
      ).json()) as { conversations: { id: number }[] };
      return list.conversations[0]?.id;
    });
    expect((await other(`/conversations/${theirs}`)).status).toBe(404);
    expect((await other(`/conversations/${theirs}/replies`, { method: 'POST', json: { text: 'hi' } })).status).toBe(404);
    const hooks = (await (await stack.call('/webhooks')).json()) as { webhooks: { id: number }[] };
    const hook = hooks.webhooks[0]?.id;
    expect((await other(`/webhooks/${hook}/deliveries`)).status).toBe(404);
    const bookings = (await (
      await fetch(`${appUrl}/console/v1/bookings`, {
        headers: { cookie: `svc_console=${(await browser.context.cookies(appUrl)).find((c) => c.name === 'svc_console')?.value}` },
      })
    ).json()) as { bookings: { id: number }[] };
    expect((await other(`/bookings/${bookings.bookings[0]?.id}`, { method: 'PATCH', json: { status: 'cancelled' } })).status).toBe(404);
    expect(((await (await other('/bookings')).json()) as { bookings: unknown[] }).bookings).toEqual([]);
    expect((await fetch(`${appUrl}/console/v1/conversations`)).status).toBe(401);
  });

  it('roles: the owner invites an agent, who has no owner actions; removed, the agent is signed out at once; admin user remove', async () => {
    await go('/settings/members', 'Team');
    await console_.getByRole('row').filter({ hasText: 'ana@shop.example' }).getByText('owner', { exact: true }).waitFor();
    // The account's only owner: no Remove button for her.
    expect(await console_.getByRole('button', { name: 'Remove ana@shop.example' }).count()).toBe(0);
    await console_.getByRole('textbox', { name: 'Email' }).fill('agnes@shop.example');
    await console_.getByRole('combobox', { name: 'Role' }).selectOption('agent');
    await console_.getByRole('button', { name: 'Invite' }).click();
    const link = await console_.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(link).toMatch(new RegExp(`^${appUrl}/set-password\\?token=`));
    const owner = await sessionApi(await cookieOf(browser));
    // An active member's email is refused: no link to take over their sign-in.
    const again = await owner('/members', { method: 'POST', json: { email: 'ana@shop.example', role: 'agent' } });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conflict');

    const agentBrowser = await launchBrowser();
    try {
      const agent = await agentBrowser.context.newPage();
      await signInFromLink(agent, link, PASSWORD);
      const nav = agent.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Bookings' }).waitFor();
      for (const name of ['API and MCP keys', 'Webhooks', 'Plan']) expect(await nav.getByRole('link', { name }).count()).toBe(0);
      await agent.goto(`${appUrl}/settings/keys`);
      await heading(agent, 'For owners only').waitFor();
      await agent.goto(`${appUrl}/settings/members`);
      await heading(agent, 'Team').waitFor();
      await agent.getByRole('row').filter({ hasText: 'agnes@shop.example' }).getByText('agent', { exact: true }).waitFor();
      expect(await agent.getByRole('button', { name: 'Invite' }).count()).toBe(0);
      expect(await agent.getByRole('button', { name: /^Remove / }).count()).toBe(0);

      const asAgent = await sessionApi(await cookieOf(agentBrowser));
      expect((await asAgent('/conversations')).status).toBe(200);
      expect((await asAgent('/bookings')).status).toBe(200);
      const ana = ((await (await owner('/members')).json()) as { members: { id: string; email: string }[] }).members.find(
        (m) => m.email === 'ana@shop.example',
      );
      for (const [method, path, json] of [
        ['GET', '/keys', undefined],
        ['POST', '/keys', {}],
        ['GET', '/webhooks', undefined],
        ['POST', '/webhooks', { url: receiver.url('/x'), events: ['message.sent'] }],
        ['PUT', '/widget-settings', { origins: [] }],
        ['POST', '/members', { email: 'ana@shop.example' }],
        ['POST', '/members', { email: 'mallory@shop.example', role: 'owner' }],
        ['DELETE', `/members/${ana?.id}`, undefined],
      ] as const) {
        const refused = await asAgent(path, { method, json });
        expect({ method, path, status: refused.status }).toEqual({ method, path, status: 403 });
        expect(await refused.json()).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
      }

      await agent.goto(`${appUrl}/inbox`);
      await heading(agent, 'Inbox').waitFor();
      const stream = await openInboxStream(await cookieOf(agentBrowser));
      expect(await stream.stillOpen()).toBe(true);
      await console_.reload();
      await heading(console_, 'Team').waitFor();
      await console_.getByRole('button', { name: 'Remove agnes@shop.example' }).click();
      stream.since();
      await console_.getByRole('row').filter({ hasText: 'agnes@shop.example' }).waitFor({ state: 'detached' });
      // Her live stream, opened before the removal, ends within seconds.
      const openFor = await Promise.race([stream.ended, sleep(5_000).then(() => Infinity)]);
      process.stdout.write(`console: a removed member's inbox stream ended ${openFor} ms after Remove\n`);
      expect(openFor).toBeLessThan(5_000);
      // The agent's next call and next page are refused at once.
      expect((await asAgent('/conversations')).status).toBe(401);
      await agent.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Bookings' }).click();
      await heading(agent, 'Sign in').waitFor();
    } finally {
      await agentBrowser.close();
    }

    const unknown = admin('user', 'remove', '--account', stack.account.accountId, '--email', 'nobody@shop.example');
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('no member with email nobody@shop.example');
    const last = admin('user', 'remove', '--account', stack.account.accountId, '--email', 'ana@shop.example');
    expect(last.status).toBe(1);
    expect(last.stderr).toContain('last owner');
    const { user } = createUser(stack.account.accountId, 'otto@shop.example');
    const removed = admin('user', 'remove', '--account', stack.account.accountId, '--email', 'otto@shop.example');
    expect(removed.status).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({
      removed: { id: user.id, email: 'otto@shop.example', role: 'owner', created_at: expect.any(String), active: false },
    });
  });

  it('one person in two accounts: the invite answers as for a new email, the link asks for her password, she chooses and switches accounts', async () => {
    const owner = await apiSession('boss@other.example');
    const invite = async (email: string) => {
      const response = await owner('/members', { method: 'POST', json: { email, role: 'agent' } });
      const body = (await response.json()) as Invited;
      return { status: response.status, keys: Object.keys(body).sort(), user: Object.keys(body.user).sort(), body };
    };
    // Ana is an owner of the first account; the other account invites her and someone new: the same answer.
    const ana = await invite('ana@shop.example');
    const fresh = await invite('newcomer@other.example');
    expect({ ...ana, body: undefined }).toEqual({ ...fresh, body: undefined });
    expect(ana.status).toBe(201);
    const listed = ((await (await owner('/members')).json()) as { members: { email: string; active: boolean }[] }).members;
    expect(listed.filter((m) => ['ana@shop.example', 'newcomer@other.example'].includes(m.email)).map((m) => m.active)).toEqual([
      false,
      false,
    ]);

    // Her link cannot set her password (that would be a takeover): it asks for hers, and guesses are throttled like sign-ins.
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => setPasswordFrom('203.0.113.99', ana.body.sign_in_url, `a guessed password ${i}`)),
    );
    const statuses = guesses.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(27);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);

    const nameOf = async (response: Promise<Response>) => ((await (await response).json()) as { account: { name: string } }).account.name;
    const first = await nameOf(fetch(`${appUrl}/console/v1/session`, { headers: { cookie: await cookieOf(browser) } }));
    const second = await nameOf(owner('/session'));
    expect(first).not.toBe(second);
    const anaBrowser = await launchBrowser();
    try {
      const page = await anaBrowser.context.newPage();
      // The link is taken in the other account, and she is signed in there.
      await signInFromLink(page, ana.body.sign_in_url, PASSWORD);
      await page.getByRole('banner').getByText(second, { exact: true }).waitFor();
      // Her sign-in in the first account (the main browser) is untouched: the password did not change.
      expect((await fetch(`${appUrl}/console/v1/session`, { headers: { cookie: await cookieOf(browser) } })).status).toBe(200);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading(page, 'Sign in').waitFor();
      await page.getByRole('textbox', { name: 'Email' }).fill('ana@shop.example');
      await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading(page, 'Choose an account').waitFor();
      const accounts = page.getByRole('list', { name: 'Accounts' });
      await accounts.getByRole('button', { name: first, exact: true }).click();
      await heading(page, 'Inbox').waitFor();
      await page.getByRole('banner').getByText(first, { exact: true }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Plan' }).waitFor(); // an owner here

      // Switch: the header's control, then the other account (an agent there); the stream of the first account ends.
      const stream = await openInboxStream(await cookieOf(anaBrowser));
      await page.getByRole('link', { name: 'Switch account' }).click();
      await heading(page, 'Choose an account').waitFor();
      await page.getByRole('list', { name: 'Accounts' }).getByRole('button', { name: second, exact: true }).click();
      stream.since();
      await heading(page, 'Inbox').waitFor();
      await page.getByRole('banner').getByText(second, { exact: true }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Plan' }).count()).toBe(0);
      expect(await Promise.race([stream.ended, sleep(5_000).then(() => Infinity)])).toBeLessThan(5_000);
      const other = await sessionApi(await cookieOf(anaBrowser));
      expect((await (await other('/session')).json()) as { account: { id: string } }).toMatchObject({
        account: { id: stack.other.accountId },
      });
      expect(
        (await other('/session/account', { method: 'POST', json: { account_id: '7f3d2c1b-0000-4000-8000-00000000dead' } })).status,
      ).toBe(404);

      // Removed from the other account (admin user remove): that session ends; her membership of the first account stays.
      const removed = admin('user', 'remove', '--account', stack.other.accountId, '--email', 'ana@shop.example');
      expect(removed.status).toBe(0);
      expect((await other('/session')).status).toBe(401);
      expect((await fetch(`${appUrl}/console/v1/session`, { headers: { cookie: await cookieOf(browser) } })).status).toBe(200);
      expect((await signInFrom('198.51.100.20', 'ana@shop.example', PASSWORD)).status).toBe(200);
    } finally {
      await anaBrowser.close();
    }
    // The other account keeps only owners (as the next test expects): the pending invitation goes.
    expect((await owner(`/members/${fresh.body.user.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it("a new password (the operator's link) ends the person's other sessions and their live streams, not the new one", async () => {
    const { sign_in_url } = createUser(stack.other.accountId, 'pat@other.example');
    const before = await usePasswordLink(sign_in_url, PASSWORD);
    expect(before.status).toBe(200);
    const stream = await openInboxStream(before.cookie);
    expect(await stream.stillOpen()).toBe(true);
    const reset = createUser(stack.other.accountId, 'pat@other.example');
    stream.since();
    const after = await usePasswordLink(reset.sign_in_url, 'a brand new password');
    expect(after.status).toBe(200);
    expect(await Promise.race([stream.ended, sleep(5_000).then(() => Infinity)])).toBeLessThan(5_000);
    expect((await fetch(`${appUrl}/console/v1/session`, { headers: { cookie: before.cookie } })).status).toBe(401);
    expect((await fetch(`${appUrl}/console/v1/session`, { headers: { cookie: after.cookie } })).status).toBe(200);
  });

  it('two owners removing each other at once: one succeeds, the other is the last owner (409)', async () => {
    const first = await apiSession('one@other.example');
    const second = await apiSession('two@other.example');
    const members = ((await (await first('/members')).json()) as { members: { id: string; email: string; role: string }[] }).members;
    expect(members.every((m) => m.role === 'owner')).toBe(true);
    // Leave exactly these two owners in the other account.
    for (const m of members.filter((m) => !['one@other.example', 'two@other.example'].includes(m.email)))
      expect((await first(`/members/${m.id}`, { method: 'DELETE' })).status).toBe(204);
    const idOf = (email: string) => members.find((m) => m.email === email)?.id;
    const [byFirst, bySecond] = await Promise.all([
      first(`/members/${idOf('two@other.example')}`, { method: 'DELETE' }),
      second(`/members/${idOf('one@other.example')}`, { method: 'DELETE' }),
    ]);
    // One removal wins; the other finds itself the last owner (409) or already signed out (401).
    expect([byFirst.status, bySecond.status].filter((s) => s === 204)).toHaveLength(1);
    const survivor = byFirst.status === 204 ? first : second;
    expect([401, 409]).toContain([byFirst.status, bySecond.status].find((s) => s !== 204));
    const left = ((await (await survivor('/members')).json()) as { members: { role: string }[] }).members;
    expect(left.filter((m) => m.role === 'owner')).toHaveLength(1);
    expect((await survivor('/members/not-a-member-id', { method: 'DELETE' })).status).toBe(404);
    expect(
      (await survivor(`/members/${idOf(byFirst.status === 204 ? 'one@other.example' : 'two@other.example')}`, { method: 'DELETE' })).status,
    ).toBe(409);
  });

  it('the initial JavaScript of the inbox is at most 250 KB gzipped (pages are separate chunks)', async () => {
    const page = await browser.context.newPage();
    const scripts: Promise<Buffer>[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.push(response.body());
    });
    await page.goto(`${appUrl}/inbox`);
    await heading(page, 'Inbox').waitFor();
    const gzipped = (await Promise.all(scripts)).reduce((total, body) => total + gzipSync(body).length, 0);
    process.stdout.write(`console: initial JavaScript of /inbox: ${(gzipped / 1024).toFixed(1)} KB gzipped in ${scripts.length} files\n`);
    expect(gzipped).toBeLessThanOrEqual(250 * 1024);
    await page.close();
  });
});
