import { ChatTexts, ContactResponseDto, GatewayContext, IdentityPassResponseDto, PhoneCodeResponse, PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import { ChatVisitor, FakeWhatsapp, freePort, launchBrowser, MailSink, Stack, startStack, TestBrowser, waitFor } from '@svc/testing';
import { randomUUID } from 'node:crypto';

const APP_SECRET = 'whatsapp-app-secret-for-tests';
const PHONE_NUMBER_ID = '109876543210';
const BUSINESS_NUMBER = '+15550001234';

/**
 * The chat's channels end to end: the apps as processes behind the gateway, a real SMTP server
 * (in-process, so it can be stopped), a fake WhatsApp Cloud API, and Chromium following the link.
 */
describe('chat channels: email confirmation and WhatsApp (processes, real PostgreSQL and RabbitMQ)', () => {
  let stack: Stack;
  let sink: MailSink;
  let fake: FakeWhatsapp;
  let browser: TestBrowser;
  let widget: string;
  let business: string;
  let texts: ChatTexts;

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
  const eventsOf = async <K extends PublicEvent['event']>(kind: K, test: (e: Extract<PublicEvent, { event: K }>) => boolean) =>
    (await feed()).filter((e): e is Extract<PublicEvent, { event: K }> => e.event === kind && test(e as Extract<PublicEvent, { event: K }>));
  const waitForEvents = <K extends PublicEvent['event']>(kind: K, test: (e: Extract<PublicEvent, { event: K }>) => boolean, count = 1) =>
    waitFor(`${count} ${kind}`, async () => {
      const found = await eventsOf(kind, test);
      return found.length >= count ? found : undefined;
    }, 30_000);
  const internal = async (method: string, path: string, json: unknown) => {
    const context: GatewayContext = { account: { id: stack.account.accountId, name: business, plan: 'scale' }, keyId: 'test', requestId: randomUUID() };
    return fetch(`${stack.services['chat']?.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', [GATEWAY_CONTEXT_HEADER]: await new InternalAuth(stack.env['INTERNAL_AUTH_SECRET'] as string).sign('chat', context) },
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
    await waitFor('the reach question', async () => {
      const state = (await (await v.call('/conversation')).json()) as { conversation: { handover: string } };
      return state.conversation.handover === 'ask_reach' ? true : undefined;
    }, 20_000);
    return v;
  };
  const passFor = async (ref: string): Promise<string> => ((await (await stack.call(`/contacts/${ref}/identity`, { method: 'POST' })).json()) as IdentityPassResponseDto).token;
  const conversationIdOf = async (from: string): Promise<number> => {
    const rows: Array<{ id: string }> = await stack.dataSource.query(`SELECT id FROM chat.conversations WHERE whatsapp_from = $1`, [from]);
    return Number(rows[0]?.id);
  };

  beforeAll(async () => {
    sink = await MailSink.start();
    const gatewayPort = String(await freePort());
    fake = await FakeWhatsapp.start({ webhookUrl: `http://127.0.0.1:${gatewayPort}/chat/whatsapp/webhook`, appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID });
    stack = await startStack(['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'chat'], {
      env: { OUTBOX_POLL_INTERVAL_MS: '200' },
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
    });
    const whoami = (await (await stack.call('/whoami')).json()) as WhoamiResponseDto;
    widget = whoami.widget;
    business = whoami.account.name;
    texts = (await (await visitor().call('/texts?lang=en', { auth: false })).json()) as ChatTexts;
    expect((await internal('PUT', '/internal/chat/whatsapp-number', { phone_number_id: PHONE_NUMBER_ID, number: BUSINESS_NUMBER })).status).toBe(200);
    expect((await stack.call('/knowledge/shipping', { method: 'PUT', json: { heading: 'Shipping times', text: 'Orders ship within two working days. Delivery takes three to five days.' } })).status).toBe(201);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await fake?.stop();
    await sink?.stop();
  });

  describe('email confirmation', () => {
    it('sends a link (text + HTML, the business named) that confirms once in Chromium; the link again changes nothing', async () => {
      expect((await stack.call('/contacts/c-bob', { method: 'PUT', json: { name: 'Bob', email: 'bob@example.com', lang: 'de' } })).status).toBe(201);
      const bob = await askedForReach(await passFor('c-bob'));
      const reach = await bob.call('/handover/reach', { method: 'POST', json: { channel: 'email', email: 'bob@example.com', consent: true, consent_text: texts.reply_email_consent, lang: 'en' } });
      expect(reach.status).toBe(200);
      const mail = await waitFor('the confirmation email', async () => sink.received.find((m) => m.to && JSON.stringify(m.to).includes('bob@example.com')), 30_000);
      expect(mail.subject).toContain(business);
      expect(mail.text).toContain(business);
      expect(mail.html).toContain(business);
      const link = /https?:\/\/\S+\/chat\/confirm\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? '')?.[0] as string;
      expect(link).toBeDefined();
      expect(mail.html).toContain(link);

      const page = await browser.context.newPage();
      const opened = await page.goto(link.replace(/^https?:\/\/[^/]+/, stack.gateway.url));
      expect(opened?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/confirmed|bestätigt/i);
      const [confirmed] = await waitForEvents('contact.confirmed', (e) => e.data.contact.ref === 'c-bob');
      expect(confirmed?.data).toMatchObject({ confirmed: 'email', conversation: { channel: 'web' }, contact: { email: 'bob@example.com', email_confirmed: true } });
      expect(((await (await stack.call('/contacts/c-bob')).json()) as ContactResponseDto).email_confirmed).toBe(true);

      const again = await page.goto(link.replace(/^https?:\/\/[^/]+/, stack.gateway.url));
      expect(again?.status()).toBe(410);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/no longer|nicht mehr/i);
      const unknown = await page.goto(`${stack.gateway.url}/chat/confirm/${'x'.repeat(43)}`);
      expect(unknown?.status()).toBe(404);
      await page.close();
      expect(await eventsOf('contact.confirmed', (e) => e.data.contact.ref === 'c-bob')).toHaveLength(1);
    }, 120_000);

    it('never checks an address the business sent as confirmed', async () => {
      expect((await stack.call('/contacts/c-cleo', { method: 'PUT', json: { name: 'Cleo', email: 'cleo@example.com', email_confirmed: true } })).status).toBe(201);
      const cleo = await askedForReach(await passFor('c-cleo'));
      expect((await cleo.call('/handover/reach', { method: 'POST', json: { channel: 'email', email: 'cleo@example.com', consent: false, consent_text: texts.reply_email_consent } })).status).toBe(200);
      const queued: unknown[] = await stack.dataSource.query(`SELECT 1 FROM chat.email_confirmations WHERE email = 'cleo@example.com'`);
      expect(queued).toEqual([]);
    }, 60_000);

    it('while SMTP is down the email waits (the visitor sees it is on its way) and goes out when it is back', async () => {
      const port = sink.port;
      await sink.stop();
      const dora = await askedForReach();
      expect((await dora.call('/handover/reach', { method: 'POST', json: { channel: 'email', email: 'dora@example.com', consent: false, consent_text: texts.reply_email_consent } })).status).toBe(200);
      const messages = ((await (await dora.call('/conversation')).json()) as { messages: Array<{ text: string }> }).messages;
      expect(messages.some((m) => m.text.includes('on its way') && m.text.includes('dora@example.com'))).toBe(true);
      await waitFor('a failed attempt', async () => {
        const rows: Array<{ attempts: number }> = await stack.dataSource.query(`SELECT attempts FROM chat.deliveries WHERE kind = 'email' AND payload->'email'->>'to' = 'dora@example.com' AND sent_at IS NULL`);
        return (rows[0]?.attempts ?? 0) >= 2 ? true : undefined;
      }, 30_000);
      sink = await MailSink.start(port);
      await waitFor('the email after the outage', async () => sink.received.find((m) => JSON.stringify(m.to).includes('dora@example.com')), 60_000);
    }, 120_000);
  });

  describe('consents collected in the chat', () => {
    it('records a future_whatsapp consent with the exact words (consent.granted, origin chat); other words → 400, nothing recorded', async () => {
      const v = visitor();
      expect((await v.session({ widget })).status).toBe(201);
      await v.send('Do you have a newsletter?');
      const de = (await (await v.call('/texts?lang=de', { auth: false })).json()) as ChatTexts;
      const wrong = await v.call('/consents', { method: 'POST', json: { purpose: 'future_whatsapp', consent_text: texts.future_whatsapp_consent, lang: 'de' } });
      expect(wrong.status).toBe(400);
      const response = await v.call('/consents', { method: 'POST', json: { purpose: 'future_whatsapp', consent_text: de.future_whatsapp_consent, lang: 'de' } });
      expect(response.status).toBe(201);
      const [granted] = await waitForEvents('consent.granted', (e) => e.data.consent.text === de.future_whatsapp_consent);
      expect(granted?.data.consent).toMatchObject({ purpose: 'future_whatsapp', origin: 'chat', source: 'chat', lang: 'de', active: true });
      expect(await eventsOf('consent.granted', (e) => e.data.contact.svc_id === granted?.data.contact.svc_id)).toHaveLength(1);
    }, 60_000);
  });

  describe('WhatsApp', () => {
    it('answers the verification handshake only with the verify token', async () => {
      const ok = await fetch(`${stack.gateway.url}/chat/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('1158201444');
      expect((await fetch(`${stack.gateway.url}/chat/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`)).status).toBe(401);
    });

    it('refuses a bad signature with 401 and records nothing', async () => {
      const { status, id } = await fake.sendInbound({ from: '+4915100000009', text: 'hello' }, `sha256=${'0'.repeat(64)}`);
      expect(status).toBe(401);
      expect(await stack.dataSource.query(`SELECT 1 FROM chat.whatsapp_inbound WHERE message_id = $1`, [id])).toEqual([]);
      expect(await stack.dataSource.query(`SELECT 1 FROM chat.conversations WHERE whatsapp_from = '+4915100000009'`)).toEqual([]);
    });

    it('makes a whatsapp conversation the assistant answers through the Cloud API; a repeated message id is processed once', async () => {
      const from = '+4915100000001';
      const first = await fake.sendInbound({ from, text: 'How long does shipping take?' });
      expect(first.status).toBe(200);
      expect((await fake.sendInbound({ from, text: 'How long does shipping take?', id: first.id })).status).toBe(200);
      const [received] = await waitForEvents('message.received', (e) => e.data.conversation.channel === 'whatsapp' && e.data.contact.phone === from);
      expect(received?.data.message.text).toBe('How long does shipping take?');
      const reply = await waitFor('the assistant reply on WhatsApp', async () => fake.sent.find((m) => m.body.to === from.slice(1)), 30_000);
      expect(reply).toMatchObject({ phoneNumberId: PHONE_NUMBER_ID, authorization: 'Bearer cloud-api-token', body: { type: 'text' } });
      expect(reply.body.text?.body).toContain('two working days');
      await waitForEvents('message.sent', (e) => e.data.conversation.channel === 'whatsapp' && e.data.message.author === 'assistant');
      expect(await eventsOf('message.received', (e) => e.data.contact.phone === from)).toHaveLength(1);
      expect(await fake.sendStatus(reply.id, 'delivered', from)).toBe(200);
      await waitFor('the status', async () => ((await stack.dataSource.query(`SELECT 1 FROM chat.whatsapp_statuses WHERE message_id = $1`, [reply.id])) as unknown[]).length > 0 || undefined);
    }, 90_000);

    it('STOP withdraws every active whatsapp consent of the customers with that number (withdrawn_by customer)', async () => {
      const from = '+4915100000002';
      const consent = (purpose: string) => ({ purpose, text: 'Yes', given_at: '2026-11-20T10:00:00Z', source: 'shop' });
      expect(
        (await stack.call('/contacts/c-stop', { method: 'PUT', json: { phone: from, consents: [consent('reply_whatsapp'), consent('future_whatsapp'), consent('future_email')] } })).status,
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
      expect((await web.call('/handover/reach', { method: 'POST', json: { channel: 'whatsapp', phone, consent: true, consent_text: texts.reply_whatsapp_consent } })).status).toBe(200);
      const response = await web.call('/phone-code', { method: 'POST' });
      expect(response.status).toBe(201);
      const shown = (await response.json()) as PhoneCodeResponse;
      expect(shown).toMatchObject({ code: expect.stringMatching(/^\d{6}$/), number: BUSINESS_NUMBER, phone });
      expect((await fake.sendInbound({ from: '+4915100000004', text: shown.code })).status).toBe(200);
      expect((await fake.sendInbound({ from: phone, text: ` ${shown.code} ` })).status).toBe(200);
      const [confirmed] = await waitForEvents('contact.confirmed', (e) => e.data.contact.phone === phone);
      expect(confirmed?.data).toMatchObject({ confirmed: 'phone', contact: { phone_confirmed: true }, conversation: { channel: 'web' } });
      expect(await eventsOf('contact.confirmed', (e) => e.data.contact.phone === '+4915100000004')).toEqual([]);
    }, 90_000);

    it('after 24 hours: free-form refused, a template refused without consent and sent with it (409 with the reason)', async () => {
      const from = '+4915100000005';
      expect((await fake.sendInbound({ from, text: 'Hello there' })).status).toBe(200);
      await waitForEvents('message.received', (e) => e.data.contact.phone === from);
      const id = await conversationIdOf(from);
      await stack.dataSource.query(`UPDATE chat.conversations SET last_customer_at = now() - interval '25 hours' WHERE id = $1`, [id]);
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
      const sent = await waitFor('the template at the Cloud API', async () => fake.sent.find((m) => m.body.to === from.slice(1) && m.body.type === 'template'), 30_000);
      expect(sent.body.template).toMatchObject({ name: 'order_update', language: { code: 'en' } });
      await waitForEvents('message.sent', (e) => e.data.conversation.id === id && e.data.message.author === 'team');
    }, 90_000);

    it('while the Cloud API is down a reply waits and is sent when it is back', async () => {
      const from = '+4915100000006';
      fake.down();
      expect((await fake.sendInbound({ from, text: 'How long does shipping take?' })).status).toBe(200);
      await waitFor('failed attempts', async () => {
        const rows: Array<{ attempts: number }> = await stack.dataSource.query(`SELECT attempts FROM chat.deliveries WHERE payload->'message'->>'to' = $1 AND sent_at IS NULL`, [from]);
        return (rows[0]?.attempts ?? 0) >= 2 ? true : undefined;
      }, 30_000);
      expect(fake.sent.some((m) => m.body.to === from.slice(1))).toBe(false);
      fake.up();
      await waitFor('the reply after the outage', async () => fake.sent.find((m) => m.body.to === from.slice(1)), 30_000);
    }, 90_000);
  });
});
