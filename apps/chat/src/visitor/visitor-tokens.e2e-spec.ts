import {
  ChatConversationResponse,
  ChatSessionResponse,
  ChatTexts,
  ErrorBody,
  IdentityPassResponseDto,
  WhoamiResponseDto,
} from '@svc/contracts';
import { queryRows } from '@svc/persistence';
import {
  ChatVisitor,
  embedPage,
  launchBrowser,
  MailSink,
  PageServer,
  servePages,
  Stack,
  startStack,
  storage,
  TestBrowser,
  waitFor,
} from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';

/** The visitor tokens' lifetime in this suite: short, so that a test can outlive one. */
const TOKEN_MAX_AGE_MS = 12_000;

/**
 * Visitor tokens never change hands (issue 39): the attacker of a shared computer copies the
 * widget's token, and gets nothing once the conversation becomes a customer's; tokens expire. The
 * apps as processes behind the gateway, a real SMTP server, Chromium driving the widget.
 */
describe('chat: visitor tokens are rotated and expire (processes, real PostgreSQL and RabbitMQ, Chromium)', () => {
  jest.setTimeout(120_000);
  let stack: Stack;
  let sink: MailSink;
  let site: PageServer;
  let browser: TestBrowser;
  let widget: string;
  let texts: ChatTexts;
  const pages = new Map<string, { widget: string; identity?: string }>();
  let pageCount = 0;

  const visitor = () => new ChatVisitor(stack.gateway.url);
  const passFor = async (ref: string): Promise<string> => {
    const response = await stack.call(`/contacts/${ref}/identity`, { method: 'POST' });
    expect(response.status).toBe(201);
    return ((await response.json()) as IdentityPassResponseDto).token;
  };
  /** A call of the visitor API with `token`, as anyone holding a copy of it can make from anywhere. */
  const withToken = (token: string, path: string, json?: unknown) =>
    fetch(`${stack.gateway.url}/chat/v1${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const session = async (body: { widget: string; identity?: string; token?: string }) => {
    const response = await fetch(`${stack.gateway.url}/chat/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as ChatSessionResponse };
  };
  /** Every visitor route a token opens, each answered 401 for a token that no longer works. */
  const expectRefusedEverywhere = async (token: string) => {
    const calls: Array<[string, unknown]> = [
      ['/conversation', undefined],
      ['/stream', undefined],
      ['/messages', { text: 'Who are you?' }],
      ['/consents', { purpose: 'future_email', consent_text: texts.future_email_consent, lang: 'en' }],
      ['/handover', {}],
      ['/handover/reach', { channel: 'email', email: 'thief@example.com', consent: false, consent_text: texts.reply_email_consent }],
      ['/bookings', { starts_at: new Date(Date.now() + 86_400_000).toISOString() }],
      ['/phone-code', {}],
    ];
    for (const [path, json] of calls) {
      const response = await withToken(token, path, json);
      expect([path, response.status]).toEqual([path, 401]);
      expect(((await response.json()) as ErrorBody).error.code).toBe('unauthorized');
    }
  };
  /** An open stream read to its end, as a copier would hold it. */
  const openStream = async (token: string) => {
    const abort = new AbortController();
    const response = await fetch(`${stack.gateway.url}/chat/v1/stream`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    const ended = (async () => {
      while (reader && !(await reader.read()).done);
      return true;
    })().catch(() => true);
    return { endsWithin: (ms: number) => Promise.race([ended, sleep(ms).then(() => false)]), close: () => abort.abort() };
  };
  const conversationWith = async (token: string) => {
    const response = await withToken(token, '/conversation');
    expect(response.status).toBe(200);
    return (await response.json()) as ChatConversationResponse;
  };
  /** The visitor leaves an unconfirmed email for the team; the link of the email sent, and the token the visitor was given for it. */
  const leaveEmail = async (v: ChatVisitor, email: string) => {
    expect((await v.call('/handover', { method: 'POST', json: {} })).status).toBe(200);
    const reach = await v.call('/handover/reach', {
      method: 'POST',
      json: { channel: 'email', email, consent: false, consent_text: texts.reply_email_consent },
    });
    expect(reach.status).toBe(200);
    const next = ((await reach.json()) as { next_token?: string }).next_token as string;
    expect(next).toMatch(/^vis_[A-Za-z0-9_-]{43}$/);
    return { next, link: await linkSentTo(email) };
  };
  const linkSentTo = async (email: string) => {
    const mail = await waitFor(
      'the confirmation email',
      async () => sink.received.find((m) => JSON.stringify(m.to).includes(email)),
      30_000,
    );
    const link = /https?:\/\/\S+\/chat\/confirm\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? '')?.[0] as string;
    return link.replace(/^https?:\/\/[^/]+/, stack.gateway.url);
  };
  const pageWith = (settings: { widget: string; identity?: string }): string => {
    const path = `/p/${(pageCount += 1)}`;
    pages.set(path, settings);
    return `${site.url}${path}`;
  };
  const openChat = async (page: Page) => {
    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  };
  const ask = async (page: Page, text: string) => {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('log').getByText(text).waitFor();
  };
  const tokenOf = async (page: Page) => (await storage.get(page, `svc-chat:${widget}:token`)) as string;

  beforeAll(async () => {
    sink = await MailSink.start();
    stack = await startStack(['contacts-api', 'identity-issuer', 'chat'], {
      startTimeoutMs: 120_000,
      appEnv: {
        chat: {
          HANDOVER_WAIT: '1s',
          SMTP_URL: sink.url,
          DELIVERY_RETRY_BASE_MS: '300',
          VISITOR_TOKEN_MAX_AGE: `${TOKEN_MAX_AGE_MS}ms`,
          VISITOR_CONVERSATIONS_PER_ADDRESS: '1000',
        },
      },
    });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    texts = (await (await fetch(`${stack.gateway.url}/chat/v1/texts?lang=en`)).json()) as ChatTexts;
    for (const [ref, name] of [
      ['c-ada', 'Ada Lovelace'],
      ['c-grace', 'Grace Hopper'],
    ])
      expect(
        (await stack.call(`/contacts/${ref}`, { method: 'PUT', json: { name, email: `${ref}@example.com`, email_confirmed: true } }))
          .status,
      ).toBe(201);
    site = await servePages((request) => embedPage(stack.gateway.url, pages.get(request.url ?? '') ?? { widget }, 'A shop'));
  }, 240_000);

  afterEach(async () => {
    await browser?.close();
  });

  afterAll(async () => {
    await site?.close();
    await stack?.stop();
    await sink?.stop();
  });

  it("a copied token is worth nothing once a pass makes the conversation its customer's: 401 everywhere, its stream ends, no session resumes it", async () => {
    // Someone opens the chat on a shared computer and copies the token from localStorage.
    const first = await session({ widget });
    expect(first.status).toBe(201);
    const copied = first.body.token;
    const spying = await openStream(copied);

    // Ada signs in on the shop: the widget sends the saved token with her pass.
    const ada = visitor();
    const signedIn = await ada.session({ widget, identity: await passFor('c-ada'), token: copied });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.conversation.id).toBe(first.body.conversation.id);
    expect(signedIn.body.customer).toMatchObject({ name: 'Ada Lovelace', email: 'c-ada@example.com' });
    expect(signedIn.body.token).toMatch(/^vis_[A-Za-z0-9_-]{43}$/);
    expect(signedIn.body.token).not.toBe(copied);
    await ada.send('Please deliver to 12 Analytical Lane');

    // The copier: the open stream ends, every route is 401, a session with the copy starts an empty conversation.
    expect(await spying.endsWithin(10_000)).toBe(true);
    await expectRefusedEverywhere(copied);
    const again = await session({ widget, token: copied });
    expect(again.status).toBe(201);
    expect(again.body.conversation.id).not.toBe(first.body.conversation.id);
    expect(again.body.customer).toBeNull();
    expect(again.body.messages).toEqual([]);
    expect((await session({ widget, token: copied, identity: await passFor('c-grace') })).body.conversation.id).not.toBe(
      first.body.conversation.id,
    );

    // Ada's token works on: her conversation, her stream, her consents.
    const mine = await conversationWith(ada.token);
    expect(mine.customer?.name).toBe('Ada Lovelace');
    expect(mine.messages.map((m) => m.text)).toContain('Please deliver to 12 Analytical Lane');
    const stream = await ada.stream();
    expect(stream.status).toBe(200);
    await stream.waitForMessage((m) => m.text.includes('Analytical Lane'));
    await stream.close();
    const consent = await ada.call('/consents', {
      method: 'POST',
      json: { purpose: 'future_email', consent_text: texts.future_email_consent, lang: 'en' },
    });
    expect(consent.status).toBe(201);
    // Her reloads keep her token: it is not rotated again while it is hers.
    const reload = await session({ widget, identity: await passFor('c-ada'), token: ada.token });
    expect([reload.status, reload.body.token]).toEqual([200, ada.token]);
    spying.close();
  });

  it('30 sessions at once with the same old token and a pass: the conversation is attached once, and no token goes to two callers', async () => {
    const first = await session({ widget });
    const pass = await passFor('c-ada');
    const opened = await Promise.all(Array.from({ length: 30 }, () => session({ widget, identity: pass, token: first.body.token })));
    expect(opened.every((o) => o.status === 200 || o.status === 201)).toBe(true);
    const tokens = opened.map((o) => o.body.token);
    expect(new Set(tokens).size).toBe(30);
    expect(tokens).not.toContain(first.body.token);
    const attached = await queryRows<{ n: number }>(
      stack.dataSource,
      `SELECT count(*)::int AS n FROM chat.conversations WHERE id = $1 AND customer_identified`,
      [first.body.conversation.id],
    );
    expect(attached[0]?.n).toBe(1);
    // Of the tokens handed out for that conversation, exactly one (the last rotation's) works.
    const same = opened.filter((o) => o.body.conversation.id === first.body.conversation.id);
    expect(same.length).toBeGreaterThanOrEqual(1);
    const working = await Promise.all(same.map(async (o) => (await withToken(o.body.token, '/conversation')).status));
    expect(working.filter((status) => status === 200)).toHaveLength(1);
    await expectRefusedEverywhere(first.body.token);
  });

  it('a confirmed email address: the old token is 401 everywhere and its stream ends; the token given to the visitor who left the address works, a copy never leads to it', async () => {
    const v = visitor();
    expect((await v.session({ widget })).status).toBe(201);
    await v.send('Where is my parcel?');
    const copied = v.token;
    const { next, link } = await leaveEmail(v, 'dora@example.com');
    // Until the address is confirmed, the token given for it opens nothing.
    expect((await withToken(next, '/conversation')).status).toBe(401);
    const spying = await openStream(copied);

    // The link opened in another tab (or on a phone): the conversation is the confirmed customer's now.
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    expect(await spying.endsWithin(10_000)).toBe(true);
    await expectRefusedEverywhere(copied);
    const stolen = await session({ widget, token: copied });
    expect(stolen.status).toBe(201);
    expect(stolen.body.messages).toEqual([]);

    const view = await conversationWith(next);
    expect(view.messages.map((m) => m.text)).toContain('Where is my parcel?');
    expect((await withToken(next, '/messages', { text: 'Thanks!' })).status).toBe(201);
  });

  it("past VISITOR_TOKEN_MAX_AGE a token is 401; a pass of the conversation's customer resumes it with a new token, an anonymous visitor starts anew", async () => {
    const ada = visitor();
    expect((await ada.session({ widget, identity: await passFor('c-ada') })).status).toBe(201);
    await ada.send('Is my order on its way?');
    const anonymous = visitor();
    expect((await anonymous.session({ widget })).status).toBe(201);
    await anonymous.send('Just browsing');
    const adaStream = await openStream(ada.token);
    const [adaToken, anonymousToken] = [ada.token, anonymous.token];

    await sleep(TOKEN_MAX_AGE_MS + 500);
    expect(await adaStream.endsWithin(2_000)).toBe(true);
    await expectRefusedEverywhere(adaToken);
    await expectRefusedEverywhere(anonymousToken);
    // The expired token alone (a copy of it) resumes nothing, not even with another customer's pass.
    expect((await session({ widget, token: adaToken })).body.messages).toEqual([]);
    expect((await session({ widget, token: adaToken, identity: await passFor('c-grace') })).body.messages).toEqual([]);

    const resumed = await session({ widget, token: adaToken, identity: await passFor('c-ada') });
    expect(resumed.status).toBe(200);
    expect(resumed.body.token).not.toBe(adaToken);
    expect(resumed.body.messages.map((m) => m.text)).toContain('Is my order on its way?');
    expect((await withToken(resumed.body.token, '/messages', { text: 'Thanks' })).status).toBe(201);

    const anew = await session({ widget, token: anonymousToken });
    expect(anew.status).toBe(201);
    expect(anew.body.messages).toEqual([]);
  });

  it('the widget in Chromium swaps tokens unseen when an address left in it is confirmed in another tab: the conversation goes on, no reload', async () => {
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    await page.goto(pageWith({ widget }));
    await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
    await openChat(page);
    await ask(page, 'I have a question about my order');
    const first = await tokenOf(page);

    await page.getByRole('button', { name: 'Talk to a person' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill('erin@example.com', { timeout: 20_000 });
    await page.getByRole('button', { name: 'Ask the team to reach me' }).click();
    await page
      .getByRole('log')
      .getByText(/on its way/)
      .waitFor({ timeout: 20_000 });
    const link = await linkSentTo('erin@example.com');
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);

    await waitFor('the widget on its new token', async () => ((await tokenOf(page)) !== first ? true : undefined), 20_000);
    const second = await tokenOf(page);
    expect((await withToken(first, '/conversation')).status).toBe(401);
    await ask(page, 'Thank you, confirmed');
    const view = await conversationWith(second);
    expect(view.messages.map((m) => m.text)).toEqual(expect.arrayContaining(['I have a question about my order', 'Thank you, confirmed']));
    expect(await page.getByRole('log').getByText('I have a question about my order').count()).toBe(1);
    expect(await page.getByText(/not reachable/).count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it("the widget in Chromium, past the token's lifetime on a page with the customer's pass: the next message goes out on a new token, in the same conversation", async () => {
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    await page.goto(pageWith({ widget, identity: await passFor('c-grace') }));
    await openChat(page);
    await page.getByText('Signed in as Grace Hopper').waitFor();
    await ask(page, 'Do you ship to Arlington?');
    const first = await tokenOf(page);
    const id = (await conversationWith(first)).conversation.id;

    await sleep(TOKEN_MAX_AGE_MS + 500);
    await ask(page, 'One more thing');
    await waitFor('a new token', async () => ((await tokenOf(page)) !== first ? true : undefined), 20_000);
    const view = await conversationWith(await tokenOf(page));
    expect(view.conversation.id).toBe(id);
    expect(view.messages.map((m) => m.text)).toEqual(expect.arrayContaining(['Do you ship to Arlington?', 'One more thing']));
    expect(await page.getByRole('log').getByText('Do you ship to Arlington?').count()).toBe(1);
    expect(await page.getByText(/not reachable/).count()).toBe(0);
  });
});
