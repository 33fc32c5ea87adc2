import { ChatTexts, ContactResponseDto, IdentityPassResponseDto, PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import {
  ADA,
  closeAll,
  embedPage,
  HttpsReceiver,
  launchBrowser,
  PageGlobals,
  PageServer,
  putCustomer,
  putPieces,
  readFeed,
  runAdmin,
  servePages,
  SHOP_KNOWLEDGE,
  Stack,
  startReceivingStack,
  storage,
  TestAccount,
  TestBrowser,
  TestCa,
} from '@svc/testing';
import { importJWK, JWK, SignJWT } from 'jose';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { gunzipSync, gzipSync } from 'node:zlib';

/** A signing key of our own for identity-issuer, so the test can write a pass that has expired. */
const signingKey: JWK & { kid: string } = {
  ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as JWK),
  kid: 'widget-test',
  alg: 'EdDSA',
};

describe('chat widget in real Chromium, on a business page of another origin, against the running apps', () => {
  // A browser start and a few round trips through six processes: generous on a loaded 2-core machine.
  jest.setTimeout(120_000);
  let stack: Stack;
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let site: PageServer;
  let browser: TestBrowser;
  let widget: string;
  let otherWidget: string;
  let texts: ChatTexts;
  /** What each path of the business's site embeds: `/p/<n>`. */
  const pages = new Map<string, { widget: string; identity?: string } | null>();
  let pageCount = 0;

  const widgetOf = async (account: TestAccount): Promise<string> =>
    ((await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto).widget;
  const passFor = async (ref: string): Promise<string> => {
    const response = await stack.call(`/contacts/${ref}/identity`, { method: 'POST' });
    expect(response.status).toBe(201);
    return ((await response.json()) as IdentityPassResponseDto).token;
  };
  /** A page of the business's site with the embed (`null`: the same page without the widget). */
  const pageWith = (settings: { widget: string; identity?: string } | null): string => {
    const path = `/p/${(pageCount += 1)}`;
    pages.set(path, settings);
    return `${site.url}${path}`;
  };
  const open = async (url: string): Promise<Page> => {
    const page = await browser.context.newPage();
    await page.goto(url);
    return page;
  };
  const openChat = async (page: Page) => {
    const launcher = page.getByRole('button', { name: 'Chat', exact: true });
    if ((await launcher.getAttribute('aria-expanded')) !== 'true') await launcher.click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  };
  const ask = async (page: Page, text: string) => {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
  };
  const log = (page: Page) => page.getByRole('log');
  const feed = (): Promise<PublicEvent[]> => readFeed(stack);
  const waitForEvent = async (kind: PublicEvent['event'], conversationId: number): Promise<PublicEvent> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = (await feed()).find(
        (e) =>
          e.event === kind && 'conversation' in e.data && (e.data as { conversation: { id: number } }).conversation.id === conversationId,
      );
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${kind} for conversation ${conversationId} in the feed`);
      await sleep(100);
    }
  };
  /** The conversation the page's widget is in, read with its own token. */
  const conversationOf = async (page: Page): Promise<number> => {
    const token = await storage.get(page, `svc-chat:${widget}:token`);
    const response = await fetch(`${stack.gateway.url}/chat/v1/conversation`, { headers: { authorization: `Bearer ${token}` } });
    return ((await response.json()) as { conversation: { id: number } }).conversation.id;
  };

  beforeAll(async () => {
    ({ ca, receiver, stack } = await startReceivingStack(
      ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat'],
      { WEBHOOK_POLL_INTERVAL_MS: '100' },
      {
        env: { OUTBOX_POLL_INTERVAL_MS: '200' },
        appEnv: { chat: { HANDOVER_WAIT: '2s' }, 'identity-issuer': { IDENTITY_SIGNING_KEYS: JSON.stringify(signingKey) } },
      },
    ));
    site = await servePages((request) => {
      const settings = pages.get(request.url ?? '');
      return settings
        ? embedPage(stack.gateway.url, settings, 'Acme Outdoor')
        : '<!doctype html><html><head><title>Acme Outdoor</title></head><body><h1>Acme Outdoor</h1></body></html>';
    });
    [widget, otherWidget] = [await widgetOf(stack.account), await widgetOf(stack.other)];
    texts = (await (await fetch(`${stack.gateway.url}/chat/v1/texts?lang=en`)).json()) as ChatTexts;
    await putPieces(stack, {
      returns: SHOP_KNOWLEDGE.returns,
      shipping: { ...SHOP_KNOWLEDGE.shipping, url: 'https://shop.example/shipping' },
    });
    await putCustomer(stack, 'c-ada', { ...ADA, email_confirmed: true });
    expect((await stack.call('/webhooks', { method: 'POST', json: { url: receiver.url('/hook') } })).status).toBe(201);
  }, 180_000);

  // Each test is a new visitor: a fresh browser profile (no stored token).
  beforeEach(async () => {
    browser = await launchBrowser();
  }, 60_000);

  afterEach(async () => {
    await browser?.close();
  });

  afterAll(() => closeAll(site, stack, receiver, ca));

  it('GET /chat/widget.js through the one origin: text/javascript, cached 5 minutes, at most 30 KB gzipped', async () => {
    const response = await fetch(`${stack.gateway.url}/chat/widget.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const body = Buffer.from(await response.arrayBuffer());
    const gzipped = response.headers.get('content-encoding') === 'gzip' ? body : gzipSync(body);
    expect(gunzipSync(gzipped).length).toBeGreaterThan(1_000);
    expect(gzipped.length).toBeLessThanOrEqual(30 * 1024);
  });

  it('a page with a pass: the widget greets the customer by name, inside an open shadow root, adding no global and nothing else to the page; usable with the keyboard alone', async () => {
    const bare = await open(pageWith(null));
    const globalsWithout = await bare.evaluate(() => Object.getOwnPropertyNames(globalThis));
    await bare.close();

    const page = await open(pageWith({ widget, identity: await passFor('c-ada') }));
    await openChat(page);
    await log(page).getByText('Hi Ada Lovelace!').waitFor();
    const added = await page.evaluate(
      (before) => Object.getOwnPropertyNames(globalThis).filter((name) => !before.includes(name)),
      globalsWithout,
    );
    expect(added).toEqual(['SvcChat']);
    const body = await page.evaluate(() =>
      Array.from((globalThis as unknown as PageGlobals).document.body.children).map(
        (e) => `${e.tagName.toLowerCase()}${e.shadowRoot ? ':open-shadow' : ''}`,
      ),
    );
    expect(body).toEqual(['h1', 'script', 'script', 'div:open-shadow']);
    // Keyboard only: Escape closes the panel (focus back on the launcher), Enter opens it with the
    // focus in the message box, Enter sends.
    await page.keyboard.press('Escape');
    const launcher = page.getByRole('button', { name: 'Chat', exact: true });
    await expect(launcher.getAttribute('aria-expanded')).resolves.toBe('false');
    await page.keyboard.press('Enter');
    await expect(launcher.getAttribute('aria-expanded')).resolves.toBe('true');
    await page.keyboard.type('Sent from the keyboard');
    await page.keyboard.press('Enter');
    await log(page).getByText('Sent from the keyboard').waitFor();
    await page.close();
  });

  it('a question → an answer citing the right piece with a link to its url; message.received and message.sent in the feed and at the webhook receiver; a reload keeps the conversation', async () => {
    const url = pageWith({ widget });
    const page = await open(url);
    await openChat(page);
    await log(page).getByText('Hi! Ask us anything.').waitFor();
    await ask(page, 'How do I return an item for a refund?');
    const source = log(page).getByRole('link', { name: 'Returns and refunds' });
    await source.waitFor({ timeout: 20_000 });
    expect(await source.getAttribute('href')).toBe('https://shop.example/returns');
    await log(page).getByText('within 30 days of delivery', { exact: false }).waitFor();
    await expect(page.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toBe('');

    const id = await conversationOf(page);
    const received = await waitForEvent('message.received', id);
    const sent = await waitForEvent('message.sent', id);
    expect(received.data).toMatchObject({
      message: { text: 'How do I return an item for a refund?' },
      conversation: { id, channel: 'web' },
    });
    expect(sent.data).toMatchObject({ message: { author: 'assistant' }, conversation: { id } });
    const hooks = (await receiver.waitFor('/hook', 2, 20_000)).map((r) => JSON.parse(r.body.toString()) as PublicEvent);
    const delivered = (kind: string) =>
      hooks.find((e) => e.event === kind && (e.data as { conversation?: { id: number } }).conversation?.id === id);
    expect(delivered('message.received')?.id).toBe(received.id);
    expect(delivered('message.sent')?.id).toBe(sent.id);

    await page.reload();
    await openChat(page);
    await log(page).getByText('How do I return an item for a refund?').waitFor();
    await log(page).getByRole('link', { name: 'Returns and refunds' }).waitFor();
    expect(await conversationOf(page)).toBe(id);
    await page.close();
  });

  it('after an answer that cites a piece, "Request a booking" asks a date and time; the request and the team\'s confirmation are told in the conversation', async () => {
    const page = await open(pageWith({ widget }));
    await openChat(page);
    const book = page.getByRole('button', { name: 'Request a booking' });
    expect(await book.isVisible()).toBe(false);
    await ask(page, 'How long does shipping take to Germany?');
    await log(page).getByRole('link', { name: 'Shipping times' }).waitFor({ timeout: 20_000 });
    await book.click();
    const when = page.getByLabel('Date and time');
    await expect(when.evaluate((e) => e === (e.getRootNode() as unknown as { activeElement: unknown }).activeElement)).resolves.toBe(true);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await when.fill(`${tomorrow}T10:30`);
    await page.getByLabel('Note (optional)').fill('Ring twice');
    await page.getByRole('button', { name: 'Send booking request' }).click();
    await log(page)
      .getByText(/Your booking request for Shipping times on \d{4}-\d{2}-\d{2} \d{2}:30 UTC was received/)
      .waitFor({ timeout: 20_000 });
    await when.waitFor({ state: 'detached' });

    // The team confirms it (the console's call): the customer sees it without a reload.
    const auth = InternalAuth.fromEnv('console', stack.env);
    const context = { account: { id: stack.account.accountId, name: '', plan: 'scale' as const }, keyId: 'test', requestId: randomUUID() };
    const headers = async () => ({ 'content-type': 'application/json', [GATEWAY_CONTEXT_HEADER]: await auth.sign('chat', context) });
    const list = (await (
      await fetch(`${stack.services['chat']?.internalUrl}/internal/chat/bookings?status=requested`, { headers: await headers() })
    ).json()) as {
      bookings: Array<{ id: number; listing_ref: string; note: string; created_by: string }>;
    };
    const booking = list.bookings.find((b) => b.listing_ref === 'shipping' && b.note === 'Ring twice');
    expect(booking?.created_by).toBe('customer');
    const confirmed = await fetch(`${stack.services['chat']?.internalUrl}/internal/chat/bookings/${booking?.id}`, {
      method: 'PATCH',
      headers: await headers(),
      body: '{"status":"confirmed"}',
    });
    expect(confirmed.status).toBe(200);
    await log(page)
      .getByText(/Your booking for Shipping times on .* is confirmed\./)
      .waitFor({ timeout: 20_000 });
    await page.close();
  });

  it('"Talk to a person" → conversation.needs_human; no team reply within HANDOVER_WAIT → the reach form with the exact consent words → handover.created and consent.granted', async () => {
    const page = await open(pageWith({ widget, identity: await passFor('c-ada') }));
    await openChat(page);
    await ask(page, 'How do I return an item for a refund?');
    await log(page)
      .getByText(/Assistant/)
      .first()
      .waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    const id = await conversationOf(page);
    expect((await waitForEvent('conversation.needs_human', id)).data).toMatchObject({ reason: 'customer_asked' });

    // The wait (2 s) runs out: the widget asks how to reach the customer, their email offered back.
    const email = page.getByRole('textbox', { name: 'Email' });
    await email.waitFor({ timeout: 20_000 });
    expect(await email.inputValue()).toBe('ada@example.com');
    const consent = page.getByRole('checkbox', { name: texts.reply_email_consent });
    await consent.check();
    await page.getByRole('button', { name: 'Ask the team to reach me' }).click();
    await email.waitFor({ state: 'detached' });

    const created = await waitForEvent('handover.created', id);
    expect(created.data).toMatchObject({
      reason: 'nobody_answered',
      reach: { method: 'email', email: 'ada@example.com' },
      message: 'How do I return an item for a refund?',
    });
    const deadline = Date.now() + 20_000;
    let granted: PublicEvent | undefined;
    while (!granted && Date.now() < deadline) {
      granted = (await feed()).find(
        (e) => e.event === 'consent.granted' && (e.data as { contact: { ref: string | null } }).contact.ref === 'c-ada',
      );
      if (!granted) await sleep(100);
    }
    expect(granted?.data).toMatchObject({
      consent: { purpose: 'reply_email', origin: 'chat', source: 'chat', text: texts.reply_email_consent },
    });
    await page.close();
  });

  it("a shared browser (one profile, one shop origin): after Ada's page with her pass, a page without one shows nothing of hers; SvcChat.reset() forgets her at once", async () => {
    const tokenOf = (page: Page) => storage.get(page, `svc-chat:${widget}:token`);
    const ada = await open(pageWith({ widget, identity: await passFor('c-ada') }));
    await openChat(ada);
    await ada.getByText('Signed in as Ada Lovelace').waitFor();
    await ask(ada, 'Please send my order to 12 Analytical Lane');
    await log(ada).getByText('12 Analytical Lane').waitFor();
    const adasToken = await tokenOf(ada);
    await ada.close();

    // The next person on the same computer: the shop's page without a pass.
    const next = await open(pageWith({ widget }));
    await openChat(next);
    await log(next).getByText('Hi! Ask us anything.').waitFor();
    await sleep(500);
    expect(await next.getByText('Signed in as').count()).toBe(0);
    expect(await next.getByText('Ada').count()).toBe(0);
    expect(await log(next).getByText('Analytical Lane').count()).toBe(0);
    const nextToken = await tokenOf(next);
    expect(nextToken).toMatch(/^vis_/);
    expect(nextToken).not.toBe(adasToken);
    await next.close();

    // The business's sign-out calls SvcChat.reset(): the panel is cleared and the token gone at once.
    const again = await open(pageWith({ widget, identity: await passFor('c-ada') }));
    await openChat(again);
    await again.getByText('Signed in as Ada Lovelace').waitFor();
    await ask(again, 'My phone is in the Analytical Engine');
    await log(again).getByText('Analytical Engine').waitFor();
    await again.evaluate(() => (globalThis as unknown as { SvcChat: { reset(): void } }).SvcChat.reset());
    expect(await tokenOf(again)).toBeNull();
    expect(await log(again).getByText('Analytical Engine').count()).toBe(0);
    expect(await again.getByText('Signed in as').count()).toBe(0);
    await openChat(again);
    await log(again).getByText('Hi! Ask us anything.').waitFor();
    for (const deadline = Date.now() + 10_000; !(await tokenOf(again)) && Date.now() < deadline;) await sleep(100);
    expect(await tokenOf(again)).toMatch(/^vis_/);
    expect(await again.getByText('Signed in as').count()).toBe(0);
    expect(await log(again).getByText('Analytical Engine').count()).toBe(0);
    expect(await tokenOf(again)).not.toBe(adasToken);
    await again.close();
  });

  it("an expired pass, or an erased customer's, leaves the visitor anonymous (the general greeting, no name)", async () => {
    expect((await stack.call('/contacts/c-old', { method: 'PUT', json: { name: 'Olga Expired' } })).status).toBe(201);
    const { svc_id: svcId } = (await (await stack.call('/contacts/c-old')).json()) as ContactResponseDto;
    const forge = async (expiresAt: number) =>
      new SignJWT({ acc: stack.account.accountId })
        .setProtectedHeader({ alg: 'EdDSA', kid: signingKey.kid, typ: 'JWT' })
        .setIssuer('svc-identity-issuer')
        .setAudience('svc-chat')
        .setSubject(String(svcId))
        .setIssuedAt(expiresAt - 3_600)
        .setExpirationTime(expiresAt)
        .setJti(randomUUID())
        .sign(await importJWK(signingKey, 'EdDSA'));
    const now = Math.floor(Date.now() / 1000);

    // The same pass, still valid, names her: only the expiry differs.
    const valid = await open(pageWith({ widget, identity: await forge(now + 3_600) }));
    await openChat(valid);
    await log(valid).getByText('Hi Olga Expired!').waitFor();
    await storage.clear(valid);
    await valid.close();

    const expired = await open(pageWith({ widget, identity: await forge(now - 60) }));
    await openChat(expired);
    await log(expired).getByText('Hi! Ask us anything.').waitFor();
    expect(await log(expired).getByText('Olga').count()).toBe(0);
    await storage.clear(expired);
    await expired.close();

    expect((await stack.call('/contacts/c-gone', { method: 'PUT', json: { name: 'Gina Gone' } })).status).toBe(201);
    const pass = await passFor('c-gone');
    expect((await stack.call('/contacts/c-gone', { method: 'DELETE' })).status).toBe(204);
    const erased = await open(pageWith({ widget, identity: pass }));
    await openChat(erased);
    await log(erased).getByText('Hi! Ask us anything.').waitFor();
    expect(await log(erased).getByText('Gina').count()).toBe(0);
    await erased.close();
  });

  it("another account's visitor token is refused: the widget starts a conversation of its own and shows nothing of the other", async () => {
    // A visitor of the other account's widget, with a message in their conversation.
    const theirs = await open(pageWith({ widget: otherWidget }));
    await openChat(theirs);
    await ask(theirs, 'A private question about my other order');
    await log(theirs).getByText('A private question about my other order').waitFor();
    const foreignToken = await storage.get(theirs, `svc-chat:${otherWidget}:token`);
    expect(foreignToken).toMatch(/^vis_/);
    await theirs.close();

    // The token planted under this account's widget: the API never opens that conversation.
    const page = await open(pageWith({ widget }));
    await storage.set(page, `svc-chat:${widget}:token`, foreignToken ?? '');
    await page.reload();
    await openChat(page);
    await log(page).getByText('Hi! Ask us anything.').waitFor();
    await sleep(500);
    expect(await log(page).getByText('A private question').count()).toBe(0);
    const mine = await storage.get(page, `svc-chat:${widget}:token`);
    expect(mine).toMatch(/^vis_/);
    expect(mine).not.toBe(foreignToken);
    await page.close();
  });

  it('/chat/demo is 404 without CHAT_DEMO_KEY; with it, the sample shop page greets its sample customer by name (and ?as=anonymous does not)', async () => {
    const off = await fetch(`${stack.gateway.url}/chat/demo`);
    expect(off.status).toBe(404);
    expect(((await off.json()) as { error: { code: string } }).error.code).toBe('not_found');

    expect((await stack.call('/contacts/demo-ada', { method: 'PUT', json: { name: 'Ada Demo' } })).status).toBe(201);
    await stack.restart('chat', 'SIGTERM', { CHAT_DEMO_KEY: stack.account.key });
    const page = await open(`${stack.gateway.url}/chat/demo`);
    expect(await page.title()).toContain('Lindenhof Coffee');
    await openChat(page);
    await log(page).getByText('Hi Ada Demo!').waitFor();
    await ask(page, 'How do I return an item for a refund?');
    await log(page).getByRole('link', { name: 'Returns and refunds' }).waitFor({ timeout: 20_000 });
    await page.close();

    const anonymous = await browser.context.newPage();
    await anonymous.goto(`${stack.gateway.url}/chat/demo?as=anonymous`);
    await storage.clear(anonymous);
    await anonymous.reload();
    await openChat(anonymous);
    await log(anonymous).getByText('Hi! Ask us anything.').waitFor();
    expect(await log(anonymous).getByText('Ada').count()).toBe(0);
  });

  it('an account that allows other origins only: the widget on this page tells the visitor so (403 forbidden_origin), nothing is created', async () => {
    const admin = runAdmin(['widget', 'origins', '--account', stack.other.accountId, '--origins', 'https://only.example'], {
      PATH: process.env['PATH'] ?? '',
      ...stack.env,
      CHAT_URL: stack.services['chat']!.internalUrl,
    });
    expect(admin.status).toBe(0);
    const page = await open(pageWith({ widget: otherWidget }));
    await openChat(page);
    await page.getByRole('status').getByText(`This chat does not answer pages of ${site.url}`, { exact: false }).waitFor();
    expect(await storage.get(page, `svc-chat:${otherWidget}:token`)).toBeNull();
  });
});
