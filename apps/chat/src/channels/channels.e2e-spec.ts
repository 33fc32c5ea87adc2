import {
  ChatTexts,
  ContactResponseDto,
  CreatedWebhookDto,
  GatewayContext,
  IdentityPassResponseDto,
  PhoneCodeResponse,
  PublicEvent,
  WhoamiResponseDto,
} from '@svc/contracts';
import { execute, queryRows } from '@svc/persistence';
import { GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import {
  ChatVisitor,
  closeAll,
  embedPage,
  FakeWhatsapp,
  freePort,
  HttpsReceiver,
  launchBrowser,
  MailSink,
  PageServer,
  readFeed,
  REPO_ROOT,
  servePages,
  Stack,
  startReceivingStack,
  TestBrowser,
  TestCa,
  waitFor,
} from '@svc/testing';
import { verify } from '@svc/webhook-signing';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const APP_SECRET = 'whatsapp-app-secret-for-tests-0123456789';
const PHONE_NUMBER_ID = '109876543210';
const BUSINESS_NUMBER = '+15550001234';

/** Where the suite's webhook endpoint receives `contact.confirmed`. */
const CONFIRMED_PATH = '/confirmed';

/**
 * The chat's channels end to end: the apps as processes behind the gateway, a real SMTP server
 * (in-process, so it can be stopped), a fake WhatsApp Cloud API, a real https webhook receiver,
 * Chromium following the link and driving the widget, and the built admin command line.
 */
describe('chat channels: email confirmation and WhatsApp (processes, real PostgreSQL and RabbitMQ)', () => {
  let stack: Stack;
  let sink: MailSink;
  let fake: FakeWhatsapp;
  let browser: TestBrowser;
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let webhookSecret: string;
  let site: PageServer;
  let gatewayPort: string;
  let widget: string;
  let business: string;
  let texts: ChatTexts;

  const eventsOf = async <K extends PublicEvent['event']>(kind: K, test: (e: Extract<PublicEvent, { event: K }>) => boolean) =>
    (await readFeed(stack)).filter(
      (e): e is Extract<PublicEvent, { event: K }> => e.event === kind && test(e as Extract<PublicEvent, { event: K }>),
    );
  const waitForEvents = <K extends PublicEvent['event']>(kind: K, test: (e: Extract<PublicEvent, { event: K }>) => boolean, count = 1) =>
    waitFor(
      `${count} ${kind}`,
      async () => {
        const found = await eventsOf(kind, test);
        return found.length >= count ? found : undefined;
      },
      30_000,
    );
  const internal = async (method: string, path: string, json: unknown) => {
    const context: GatewayContext = {
      account: { id: stack.account.accountId, name: business, plan: 'scale' },
      keyId: 'test',
      requestId: randomUUID(),
    };
    return fetch(`${stack.services['chat']?.internalUrl}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        [GATEWAY_CONTEXT_HEADER]: await InternalAuth.fromEnv(path.endsWith('/whatsapp-number') ? 'admin' : 'console', stack.env).sign(
          'chat',
          context,
        ),
      },
      body: JSON.stringify(json),
    });
  };
  const visitor = () => new ChatVisitor(stack.gateway.url);
  /** A visitor whose wait for a person ran out: the widget now asks how to reach them. */
  const askedForReach = async (identity?: string): Promise<ChatVisitor> => {
    const v = visitor();
    expect((await v.session({ widget, ...(identity ? { identity } : {}) })).status).toBe(201);
    await v.send('I have a question about my order');
    expect((await v.call('/handover', { method: 'POST' })).status).toBe(200);
    await waitFor(
      'the reach question',
      async () => {
        const state = (await (await v.call('/conversation')).json()) as { conversation: { handover: string } };
        return state.conversation.handover === 'ask_reach' ? true : undefined;
      },
      20_000,
    );
    return v;
  };
  const passFor = async (ref: string): Promise<string> =>
    ((await (await stack.call(`/contacts/${ref}/identity`, { method: 'POST' })).json()) as IdentityPassResponseDto).token;
  /** The `contact.confirmed` the receiver got for which `test` holds, its signature checked with the endpoint's secret. */
  const deliveredConfirmation = (test: (e: Extract<PublicEvent, { event: 'contact.confirmed' }>) => boolean) =>
    waitFor(
      'contact.confirmed at the webhook receiver',
      async () => {
        for (const request of receiver.received(CONFIRMED_PATH)) {
          const event = verify(request.body, request.headers, webhookSecret) as Extract<PublicEvent, { event: 'contact.confirmed' }>;
          if (test(event)) return event;
        }
        return undefined;
      },
      30_000,
    );
  const conversationIdOf = async (from: string): Promise<number> => {
    const rows = await queryRows<{ id: string }>(stack.dataSource, `SELECT id FROM chat.conversations WHERE whatsapp_from = $1`, [from]);
    return Number(rows[0]?.id);
  };

  beforeAll(async () => {
    sink = await MailSink.start();
    gatewayPort = String(await freePort());
    fake = await FakeWhatsapp.start({
      webhookUrl: `http://127.0.0.1:${gatewayPort}/chat/whatsapp/webhook`,
      appSecret: APP_SECRET,
      phoneNumberId: PHONE_NUMBER_ID,
    });
    ({ ca, receiver, stack } = await startReceivingStack(
      ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat'],
      { WEBHOOK_POLL_INTERVAL_MS: '100' },
      {
        env: { OUTBOX_POLL_INTERVAL_MS: '200' },
        startTimeoutMs: 120_000,
        appEnv: {
          gateway: { PORT: gatewayPort },
          chat: {
            HANDOVER_WAIT: '1s',
            SMTP_URL: sink.url,
            EMAIL_FROM: 'Shop <shop@example.com>',
            WHATSAPP_API_URL: fake.url,
            WHATSAPP_ACCESS_TOKEN: 'cloud-api-token',
            WHATSAPP_APP_SECRET: APP_SECRET,
            WHATSAPP_VERIFY_TOKEN: 'verify-me',
            DELIVERY_RETRY_BASE_MS: '300',
          },
        },
      },
    ));
    const whoami = (await (await stack.call('/whoami')).json()) as WhoamiResponseDto;
    widget = whoami.widget;
    business = whoami.account.name;
    texts = (await (await visitor().call('/texts?lang=en', { auth: false })).json()) as ChatTexts;
    expect(
      (await internal('PUT', '/internal/chat/whatsapp-number', { phone_number_id: PHONE_NUMBER_ID, number: BUSINESS_NUMBER })).status,
    ).toBe(200);
    expect(
      (
        await stack.call('/knowledge/shipping', {
          method: 'PUT',
          json: { heading: 'Shipping times', text: 'Orders ship within two working days. Delivery takes three to five days.' },
        })
      ).status,
    ).toBe(201);
    const webhook = await stack.call('/webhooks', {
      method: 'POST',
      json: { url: receiver.url(CONFIRMED_PATH), events: ['contact.confirmed'] },
    });
    expect(webhook.status).toBe(201);
    webhookSecret = ((await webhook.json()) as CreatedWebhookDto).secret;
    site = await servePages(() => embedPage(stack.gateway.url, { widget }, 'A shop'));
    browser = await launchBrowser();
  }, 240_000);

  afterAll(() => closeAll(browser, site, stack, receiver, ca, fake, sink));

  describe('email confirmation', () => {
    it('sends a link (text + HTML, the business named); opening it (GET, as a mail scanner does) changes nothing; its "Confirm" button confirms once in Chromium; the link again changes nothing', async () => {
      expect(
        (await stack.call('/contacts/c-bob', { method: 'PUT', json: { name: 'Bob', email: 'bob@example.com', lang: 'de' } })).status,
      ).toBe(201);
      const bob = await askedForReach(await passFor('c-bob'));
      const reach = await bob.call('/handover/reach', {
        method: 'POST',
        json: { channel: 'email', email: 'bob@example.com', consent: true, consent_text: texts.reply_email_consent, lang: 'en' },
      });
      expect(reach.status).toBe(200);
      const mail = await waitFor(
        'the confirmation email',
        async () => sink.received.find((m) => m.to && JSON.stringify(m.to).includes('bob@example.com')),
        30_000,
      );
      expect(mail.subject).toContain(business);
      expect(mail.text).toContain(business);
      expect(mail.html).toContain(business);
      const link = /https?:\/\/\S+\/chat\/confirm\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? '')?.[0] as string;
      expect(link).toBeDefined();
      expect(mail.html).toContain(link);

      const local = link.replace(/^https?:\/\/[^/]+/, stack.gateway.url);
      // A mail scanner's prefetch: GET, twice, changes nothing.
      for (let i = 0; i < 2; i += 1) {
        const prefetch = await fetch(local);
        expect(prefetch.status).toBe(200);
        expect(await prefetch.text()).toContain('<form method="post">');
      }
      await sleep(500);
      expect(((await (await stack.call('/contacts/c-bob')).json()) as ContactResponseDto).email_confirmed).toBe(false);
      expect(await eventsOf('contact.confirmed', (e) => e.data.contact.ref === 'c-bob')).toHaveLength(0);

      const page = await browser.context.newPage();
      const opened = await page.goto(local);
      expect(opened?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(business);
      expect(((await (await stack.call('/contacts/c-bob')).json()) as ContactResponseDto).email_confirmed).toBe(false);
      await page.getByRole('button').click();
      await page.getByRole('heading', { level: 1, name: /confirmed|bestätigt/i }).waitFor();
      const [confirmed] = await waitForEvents('contact.confirmed', (e) => e.data.contact.ref === 'c-bob');
      expect(confirmed?.data).toMatchObject({
        confirmed: 'email',
        conversation: { channel: 'web' },
        contact: { email: 'bob@example.com', email_confirmed: true },
      });
      expect(await deliveredConfirmation((e) => e.data.contact.ref === 'c-bob')).toEqual(confirmed);
      expect(((await (await stack.call('/contacts/c-bob')).json()) as ContactResponseDto).email_confirmed).toBe(true);

      const again = await page.goto(local);
      expect(again?.status()).toBe(410);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/no longer|nicht mehr/i);
      expect((await fetch(local, { method: 'POST' })).status).toBe(410);
      const unknown = await page.goto(`${stack.gateway.url}/chat/confirm/${'x'.repeat(43)}`);
      expect(unknown?.status()).toBe(404);
      expect((await fetch(`${stack.gateway.url}/chat/confirm/${'x'.repeat(43)}`, { method: 'POST' })).status).toBe(404);
      // Without script the form posts itself (an empty form body, where the Ingress routes to the chat): taken there only.
      const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' };
      expect((await fetch(`${stack.services['chat']!.url}/chat/confirm/${'x'.repeat(43)}`, form)).status).toBe(404);
      const elsewhere = await fetch(`${stack.services['chat']!.url}/chat/v1/sessions`, form);
      expect(elsewhere.status).toBe(415);
      expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
      await page.close();
      expect(await eventsOf('contact.confirmed', (e) => e.data.contact.ref === 'c-bob')).toHaveLength(1);
      expect(
        receiver.received(CONFIRMED_PATH).filter((r) => (JSON.parse(r.body.toString('utf8')) as PublicEvent).data.contact.ref === 'c-bob'),
      ).toHaveLength(1);
      expect(((await (await stack.call('/contacts/c-bob')).json()) as ContactResponseDto).email_confirmed).toBe(true);
    }, 120_000);

    it('never checks an address the business sent as confirmed', async () => {
      expect(
        (await stack.call('/contacts/c-cleo', { method: 'PUT', json: { name: 'Cleo', email: 'cleo@example.com', email_confirmed: true } }))
          .status,
      ).toBe(201);
      const cleo = await askedForReach(await passFor('c-cleo'));
      expect(
        (
          await cleo.call('/handover/reach', {
            method: 'POST',
            json: { channel: 'email', email: 'cleo@example.com', consent: false, consent_text: texts.reply_email_consent },
          })
        ).status,
      ).toBe(200);
      const queued = await queryRows<object>(stack.dataSource, `SELECT 1 FROM chat.email_confirmations WHERE email = 'cleo@example.com'`);
      expect(queued).toEqual([]);
    }, 60_000);

    it('while SMTP is down the email waits (the visitor sees it is on its way) and goes out when it is back', async () => {
      const port = sink.port;
      await sink.stop();
      const dora = await askedForReach();
      expect(
        (
          await dora.call('/handover/reach', {
            method: 'POST',
            json: { channel: 'email', email: 'dora@example.com', consent: false, consent_text: texts.reply_email_consent },
          })
        ).status,
      ).toBe(200);
      const messages = ((await (await dora.call('/conversation')).json()) as { messages: Array<{ text: string }> }).messages;
      expect(messages.some((m) => m.text.includes('on its way') && m.text.includes('dora@example.com'))).toBe(true);
      await waitFor(
        'a failed attempt',
        async () => {
          const rows = await queryRows<{ attempts: number }>(
            stack.dataSource,
            `SELECT attempts FROM chat.deliveries WHERE kind = 'email' AND payload->'email'->>'to' = 'dora@example.com' AND sent_at IS NULL`,
          );
          return (rows[0]?.attempts ?? 0) >= 2 ? true : undefined;
        },
        30_000,
      );
      sink = await MailSink.start(port);
      await waitFor(
        'the email after the outage',
        async () => sink.received.find((m) => JSON.stringify(m.to).includes('dora@example.com')),
        60_000,
      );
    }, 120_000);
  });

  describe('consents collected in the chat', () => {
    it('records a future_whatsapp consent with the exact words (consent.granted, origin chat); other words → 400, nothing recorded', async () => {
      const v = visitor();
      expect((await v.session({ widget })).status).toBe(201);
      await v.send('Do you have a newsletter?');
      const de = (await (await v.call('/texts?lang=de', { auth: false })).json()) as ChatTexts;
      const wrong = await v.call('/consents', {
        method: 'POST',
        json: { purpose: 'future_whatsapp', consent_text: texts.future_whatsapp_consent, lang: 'de' },
      });
      expect(wrong.status).toBe(400);
      const response = await v.call('/consents', {
        method: 'POST',
        json: { purpose: 'future_whatsapp', consent_text: de.future_whatsapp_consent, lang: 'de' },
      });
      expect(response.status).toBe(201);
      const [granted] = await waitForEvents('consent.granted', (e) => e.data.consent.text === de.future_whatsapp_consent);
      expect(granted?.data.consent).toMatchObject({ purpose: 'future_whatsapp', origin: 'chat', source: 'chat', lang: 'de', active: true });
      expect(await eventsOf('consent.granted', (e) => e.data.contact.svc_id === granted?.data.contact.svc_id)).toHaveLength(1);
    }, 60_000);

    it('30 consents sent at once in one conversation: 10 recorded (each with its consent.granted), the rest 429 with Retry-After', async () => {
      const v = visitor();
      const session = await v.session({ widget });
      expect(session.status).toBe(201);
      const conversation = session.body.conversation.id;
      await v.send('Can you keep me posted?');
      const responses = await Promise.all(
        Array.from({ length: 30 }, () =>
          v.call('/consents', {
            method: 'POST',
            json: { purpose: 'future_email', consent_text: texts.future_email_consent, lang: 'en' },
          }),
        ),
      );
      const created = responses.filter((r) => r.status === 201);
      const refused = responses.filter((r) => r.status !== 201);
      expect(created).toHaveLength(10);
      expect(refused.map((r) => r.status)).toEqual(Array(20).fill(429));
      for (const response of refused) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(3_500);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      }
      const mine = (e: Extract<PublicEvent, { event: 'consent.granted' }>) => e.data.conversation?.id === conversation;
      await waitForEvents('consent.granted', mine, 10);
      await sleep(1_000);
      expect(await eventsOf('consent.granted', mine)).toHaveLength(10);
    }, 60_000);
  });

  describe('WhatsApp', () => {
    it('answers the verification handshake only with the verify token', async () => {
      const ok = await fetch(
        `${stack.gateway.url}/chat/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444`,
      );
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('1158201444');
      for (const token of ['wrong', 'verify-m', 'verify-me-too', '', 'x'.repeat(5_000)]) {
        const refused = await fetch(
          `${stack.gateway.url}/chat/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1`,
        );
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
    });

    it('refuses a bad signature with 401 and records nothing', async () => {
      const { status, id } = await fake.sendInbound({ from: '+4915100000009', text: 'hello' }, `sha256=${'0'.repeat(64)}`);
      expect(status).toBe(401);
      expect(await queryRows<object>(stack.dataSource, `SELECT 1 FROM chat.whatsapp_inbound WHERE message_id = $1`, [id])).toEqual([]);
      expect(await queryRows<object>(stack.dataSource, `SELECT 1 FROM chat.conversations WHERE whatsapp_from = '+4915100000009'`)).toEqual(
        [],
      );
    });

    it('makes a whatsapp conversation the assistant answers through the Cloud API; a repeated message id is processed once', async () => {
      const from = '+4915100000001';
      const first = await fake.sendInbound({ from, text: 'How long does shipping take?' });
      expect(first.status).toBe(200);
      expect((await fake.sendInbound({ from, text: 'How long does shipping take?', id: first.id })).status).toBe(200);
      const [received] = await waitForEvents(
        'message.received',
        (e) => e.data.conversation.channel === 'whatsapp' && e.data.contact.phone === from,
      );
      expect(received?.data.message.text).toBe('How long does shipping take?');
      const reply = await waitFor(
        'the assistant reply on WhatsApp',
        async () => fake.sent.find((m) => m.body.to === from.slice(1)),
        30_000,
      );
      expect(reply).toMatchObject({ phoneNumberId: PHONE_NUMBER_ID, authorization: 'Bearer cloud-api-token', body: { type: 'text' } });
      expect(reply.body.text?.body).toContain('two working days');
      await waitForEvents('message.sent', (e) => e.data.conversation.channel === 'whatsapp' && e.data.message.author === 'assistant');
      expect(await eventsOf('message.received', (e) => e.data.contact.phone === from)).toHaveLength(1);
      expect(await fake.sendStatus(reply.id, 'delivered', from)).toBe(200);
      await waitFor(
        'the status',
        async () =>
          (await queryRows<object>(stack.dataSource, `SELECT 1 FROM chat.whatsapp_statuses WHERE message_id = $1`, [reply.id])).length >
            0 || undefined,
      );
    }, 90_000);

    it('STOP withdraws every active whatsapp consent of the customers with that number (withdrawn_by customer)', async () => {
      const from = '+4915100000002';
      const consent = (purpose: string) => ({ purpose, text: 'Yes', given_at: '2026-11-20T10:00:00Z', source: 'shop' });
      expect(
        (
          await stack.call('/contacts/c-stop', {
            method: 'PUT',
            json: { phone: from, consents: [consent('reply_whatsapp'), consent('future_whatsapp'), consent('future_email')] },
          })
        ).status,
      ).toBe(201);
      expect((await fake.sendInbound({ from, text: 'Stop' })).status).toBe(200);
      const withdrawn = await waitForEvents('consent.withdrawn', (e) => e.data.contact.ref === 'c-stop', 2);
      expect(withdrawn.map((e) => e.data.consent.purpose).sort()).toEqual(['future_whatsapp', 'reply_whatsapp']);
      expect(withdrawn.every((e) => e.data.consent.withdrawn_by === 'customer' && e.data.conversation?.channel === 'whatsapp')).toBe(true);
      const contact = (await (await stack.call('/contacts/c-stop')).json()) as ContactResponseDto;
      expect(contact.consents.map((c) => [c.purpose, c.active])).toEqual([
        ['reply_whatsapp', false],
        ['future_whatsapp', false],
        ['future_email', true],
      ]);
    }, 60_000);

    it('confirms a phone by the code from the right number only', async () => {
      const phone = '+4915100000003';
      const web = await askedForReach();
      expect(
        (
          await web.call('/handover/reach', {
            method: 'POST',
            json: { channel: 'whatsapp', phone, consent: true, consent_text: texts.reply_whatsapp_consent },
          })
        ).status,
      ).toBe(200);
      const response = await web.call('/phone-code', { method: 'POST' });
      expect(response.status).toBe(201);
      const shown = (await response.json()) as PhoneCodeResponse;
      expect(shown).toMatchObject({ code: expect.stringMatching(/^\d{6}$/), number: BUSINESS_NUMBER, phone });
      expect((await fake.sendInbound({ from: '+4915100000004', text: shown.code })).status).toBe(200);
      expect((await fake.sendInbound({ from: phone, text: ` ${shown.code} ` })).status).toBe(200);
      const [confirmed] = await waitForEvents('contact.confirmed', (e) => e.data.contact.phone === phone);
      expect(confirmed?.data).toMatchObject({ confirmed: 'phone', contact: { phone_confirmed: true }, conversation: { channel: 'web' } });
      expect(await deliveredConfirmation((e) => e.data.contact.phone === phone)).toEqual(confirmed);
      expect(await eventsOf('contact.confirmed', (e) => e.data.contact.phone === '+4915100000004')).toEqual([]);
    }, 90_000);

    it('after 24 hours: free-form refused, a template refused without consent and sent with it (409 with the reason)', async () => {
      const from = '+4915100000005';
      expect((await fake.sendInbound({ from, text: 'Hello there' })).status).toBe(200);
      await waitForEvents('message.received', (e) => e.data.contact.phone === from);
      const id = await conversationIdOf(from);
      await execute(stack.dataSource, `UPDATE chat.conversations SET last_customer_at = now() - interval '25 hours' WHERE id = $1`, [id]);
      const text = await internal('POST', `/internal/chat/conversations/${id}/whatsapp-text`, { text: 'Are you still there?' });
      expect(text.status).toBe(409);
      expect(JSON.stringify(await text.json())).toContain('24 hours');
      // The inbox's reply (the console's and MCP's send_reply) keeps the same rule on a WhatsApp conversation.
      const reply = await internal('POST', `/internal/chat/conversations/${id}/replies`, { text: 'Are you still there?' });
      expect(reply.status).toBe(409);
      expect(JSON.stringify(await reply.json())).toContain('24 hours');
      const template = { template: 'order_update', lang: 'en', params: ['A-1042'] };
      const refused = await internal('POST', `/internal/chat/conversations/${id}/whatsapp-template`, template);
      expect(refused.status).toBe(409);
      expect(JSON.stringify(await refused.json())).toContain('consent');
      expect(fake.sent.some((m) => m.body.to === from.slice(1) && m.body.type === 'template')).toBe(false);

      const [received] = await eventsOf('message.received', (e) => e.data.contact.phone === from);
      const svcId = received?.data.contact.svc_id as number;
      const consents = [{ purpose: 'future_whatsapp', text: 'Yes, WhatsApp me', given_at: '2026-11-20T10:00:00Z', source: 'shop' }];
      expect((await stack.call('/contacts/c-late', { method: 'PUT', json: { svc_id: svcId, consents } })).status).toBe(200);
      expect((await internal('POST', `/internal/chat/conversations/${id}/whatsapp-template`, template)).status).toBe(201);
      const sent = await waitFor(
        'the template at the Cloud API',
        async () => fake.sent.find((m) => m.body.to === from.slice(1) && m.body.type === 'template'),
        30_000,
      );
      expect(sent.body.template).toMatchObject({ name: 'order_update', language: { code: 'en' } });
      await waitForEvents('message.sent', (e) => e.data.conversation.id === id && e.data.message.author === 'team');
    }, 90_000);

    it('while the Cloud API is down a reply waits and is sent when it is back', async () => {
      const from = '+4915100000006';
      fake.down();
      expect((await fake.sendInbound({ from, text: 'How long does shipping take?' })).status).toBe(200);
      await waitFor(
        'failed attempts',
        async () => {
          const rows = await queryRows<{ attempts: number }>(
            stack.dataSource,
            `SELECT attempts FROM chat.deliveries WHERE payload->'message'->>'to' = $1 AND sent_at IS NULL`,
            [from],
          );
          return (rows[0]?.attempts ?? 0) >= 2 ? true : undefined;
        },
        30_000,
      );
      expect(fake.sent.some((m) => m.body.to === from.slice(1))).toBe(false);
      fake.up();
      await waitFor('the reply after the outage', async () => fake.sent.find((m) => m.body.to === from.slice(1)), 30_000);
    }, 90_000);
  });

  describe('the widget in Chromium: phone code and consent controls', () => {
    it('the consent boxes → consent.granted with the words shown; the code shown, sent from the number → confirmed in the widget and contact.confirmed', async () => {
      const phone = '+4915100000007';
      const page = await browser.context.newPage();
      await page.goto(site.url);
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      await page.getByRole('textbox', { name: 'Message' }).fill('I have a question about my order');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('button', { name: 'Talk to a person' }).click();

      await page.getByRole('radio', { name: 'WhatsApp' }).check({ timeout: 20_000 });
      await page.getByRole('textbox', { name: 'WhatsApp number' }).fill(phone);
      await page.getByRole('checkbox', { name: texts.reply_whatsapp_consent }).check();
      await page.getByRole('checkbox', { name: texts.future_whatsapp_consent }).check();
      await page.getByRole('button', { name: 'Ask the team to reach me' }).click();

      const status = page.getByRole('status');
      await status.getByText(/send the code \d{6}/).waitFor({ timeout: 20_000 });
      const note = (await status.textContent()) ?? '';
      expect(note).toContain(`from ${phone} to ${BUSINESS_NUMBER}`);
      const code = /send the code (\d{6})/.exec(note)?.[1] as string;

      const granted = await waitForEvents('consent.granted', (e) => e.data.contact.phone === phone, 2);
      expect(granted.map((e) => [e.data.consent.purpose, e.data.consent.text]).sort()).toEqual([
        ['future_whatsapp', texts.future_whatsapp_consent],
        ['reply_whatsapp', texts.reply_whatsapp_consent],
      ]);
      expect(
        granted.every(
          (e) =>
            e.data.consent.origin === 'chat' &&
            e.data.consent.source === 'chat' &&
            e.data.consent.active &&
            e.data.conversation?.channel === 'web',
        ),
      ).toBe(true);
      expect(await eventsOf('contact.confirmed', (e) => e.data.contact.phone === phone)).toEqual([]);

      // The visitor sends the code from their phone: the Cloud API (the fake) posts it to the chat's webhook.
      expect((await fake.sendInbound({ from: phone, text: code })).status).toBe(200);
      await page.getByRole('log').getByText(`your WhatsApp number ${phone} is confirmed`).waitFor({ timeout: 30_000 });
      const [confirmed] = await waitForEvents('contact.confirmed', (e) => e.data.contact.phone === phone);
      expect(confirmed?.data).toMatchObject({
        confirmed: 'phone',
        contact: { phone, phone_confirmed: true },
        conversation: { channel: 'web', id: granted[0]?.data.conversation?.id },
      });
      await page.close();
    }, 120_000);
  });

  describe('admin whatsapp connect (the built command line)', () => {
    const run = promisify(execFile);
    /** The command as an operator runs it (asynchronously: the receiver and the fake live in this process). */
    const admin = async (...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> => {
      const env = {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: stack.db.url,
        ADMIN_INTERNAL_KEY: stack.env['ADMIN_INTERNAL_KEY'] as string,
        CHAT_URL: stack.services['chat']?.internalUrl as string,
      };
      try {
        const { stdout, stderr } = await run(process.execPath, [join(REPO_ROOT, 'dist/apps/admin/src/main.js'), ...args], {
          env,
          encoding: 'utf8',
        });
        return { status: 0, stdout, stderr };
      } catch (err) {
        const failed = err as { code: number; stdout: string; stderr: string };
        return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const storedNumber = async (accountId: string) =>
      queryRows<{ phone_number_id: string; number: string }>(
        stack.dataSource,
        `SELECT phone_number_id, number FROM chat.whatsapp_numbers WHERE account_id = $1`,
        [accountId],
      );

    it("prints the connection, stores it, and the account's WhatsApp then runs through it; bad input → a clear error, exit ≠ 0, nothing changed", async () => {
      const account = await stack.newAccount();
      const phoneNumberId = '204060801234';
      const connected = await admin(
        'whatsapp',
        'connect',
        '--account',
        account.accountId,
        '--phone-number-id',
        phoneNumberId,
        '--number',
        '+15550007777',
      );
      expect(connected).toMatchObject({ status: 0, stderr: '' });
      expect(connected.stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(connected.stdout)).toEqual({
        whatsapp: { account_id: account.accountId, phone_number_id: phoneNumberId, number: '+15550007777' },
      });
      expect(await storedNumber(account.accountId)).toEqual([{ phone_number_id: phoneNumberId, number: '+15550007777' }]);

      // Meta posts a message to the connected number: a conversation of that account, answered from that number.
      const from = '+4915100000008';
      const meta = await FakeWhatsapp.start({
        webhookUrl: `http://127.0.0.1:${gatewayPort}/chat/whatsapp/webhook`,
        appSecret: APP_SECRET,
        phoneNumberId,
      });
      try {
        expect((await meta.sendInbound({ from, text: 'Hello, are you open on Sundays?' })).status).toBe(200);
      } finally {
        await meta.stop();
      }
      const reply = await waitFor(
        'the answer from the connected number',
        async () => fake.sent.find((m) => m.body.to === from.slice(1)),
        30_000,
      );
      expect(reply).toMatchObject({ phoneNumberId, body: { type: 'text' } });
      expect(
        await queryRows<{ account_id: string }>(stack.dataSource, `SELECT account_id FROM chat.conversations WHERE whatsapp_from = $1`, [
          from,
        ]),
      ).toEqual([{ account_id: account.accountId }]);

      const refused: Array<[string[], RegExp, number]> = [
        [['--number', '0151 2345678'], /--number.*E\.164/, 2],
        [
          ['--phone-number-id', 'not an id!'],
          /^error: the chat refused whatsapp connect: 400 The request has invalid fields\. phone_number_id must be the Cloud API phone number id/,
          1,
        ],
        [['--account', '00000000-0000-0000-0000-000000000000'], /no account/, 1],
      ];
      for (const [change, message, status] of refused) {
        const options = { '--account': account.accountId, '--phone-number-id': '999', '--number': '+15550008888' } as Record<
          string,
          string
        >;
        options[change[0] as string] = change[1] as string;
        const result = await admin('whatsapp', 'connect', ...Object.entries(options).flat());
        expect({ status: result.status, stdout: result.stdout }).toEqual({ status, stdout: '' });
        expect(result.stderr).toMatch(message);
      }
      const missing = await admin('whatsapp', 'connect', '--account', account.accountId, '--phone-number-id', '999');
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toMatch(/--number/);
      expect(await storedNumber(account.accountId)).toEqual([{ phone_number_id: phoneNumberId, number: '+15550007777' }]);
    }, 90_000);
  });
});
