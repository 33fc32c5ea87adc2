import { ChatTexts, ErrorBody, IdentityPassResponseDto, PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import { execute, queryRows } from '@svc/persistence';
import { ADA, ChatVisitor, putCustomer, putPieces, readFeed, runAdmin, SHOP_KNOWLEDGE, Stack, startStack, TestAccount } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/** The chat's per-conversation limit in this suite (a test sends one more). */
const MESSAGES_PER_MINUTE = 6;

const errorCode = async (response: Response) => ((await response.json()) as ErrorBody).error.code;

describe('chat: the visitor API through the gateway (processes, real PostgreSQL and RabbitMQ)', () => {
  let stack: Stack;
  let widget: string;
  let otherWidget: string;

  const visitor = (headers: Record<string, string> = {}) => new ChatVisitor(stack.gateway.url, headers);
  const widgetOf = async (account: TestAccount): Promise<string> =>
    ((await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto).widget;
  const passFor = async (ref: string, key = stack.account.key): Promise<string> => {
    const response = await stack.call(`/contacts/${encodeURIComponent(ref)}/identity`, { method: 'POST', key });
    expect(response.status).toBe(201);
    return ((await response.json()) as IdentityPassResponseDto).token;
  };
  /** Every event of the account's feed so far. */
  const feed = (key = stack.account.key): Promise<PublicEvent[]> => readFeed(stack, key);
  /** `admin widget origins` for the account, as an operator runs it. */
  const widgetOrigins = (accountId: string, origins: string) =>
    runAdmin(['widget', 'origins', '--account', accountId, '--origins', origins], {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: stack.db.url,
      CHAT_URL: stack.services['chat']?.internalUrl,
      ADMIN_INTERNAL_KEY: stack.env['ADMIN_INTERNAL_KEY'],
    });
  const waitForEvent = async <K extends PublicEvent['event']>(
    kind: K,
    test: (e: Extract<PublicEvent, { event: K }>) => boolean,
    key?: string,
  ) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = (await feed(key)).filter(
        (e): e is Extract<PublicEvent, { event: K }> => e.event === kind && test(e as Extract<PublicEvent, { event: K }>),
      );
      if (found.length > 0) return found;
      if (Date.now() > deadline) throw new Error(`no ${kind} event in the feed: ${JSON.stringify(await feed(key))}`);
      await sleep(100);
    }
  };

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'chat'], {
      env: { OUTBOX_POLL_INTERVAL_MS: '200' },
      appEnv: { chat: { HANDOVER_WAIT: '2s', VISITOR_MESSAGES_PER_MINUTE: String(MESSAGES_PER_MINUTE) } },
    });
    widget = await widgetOf(stack.account);
    otherWidget = await widgetOf(stack.other);
    await putPieces(stack, {
      ...SHOP_KNOWLEDGE,
      versand: {
        heading: 'Versandkosten',
        text: 'Der Versand innerhalb Deutschlands kostet 4,90 Euro, ab 50 Euro Bestellwert ist er kostenlos.',
      },
    });
    await putCustomer(stack, 'c-ada', { ...ADA, email_confirmed: true });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("/whoami returns the account's public widget id, one per account", async () => {
    expect(widget).toMatch(/^wgt_[0-9a-f]{32}$/);
    expect(otherWidget).toMatch(/^wgt_[0-9a-f]{32}$/);
    expect(otherWidget).not.toBe(widget);
  });

  it("a session with a pass is that customer's (named, details offered back); its token reopens the same conversation (200)", async () => {
    const ada = visitor();
    const first = await ada.session({ widget, identity: await passFor('c-ada') });
    expect(first.status).toBe(201);
    expect(first.body.token).toMatch(/^vis_[A-Za-z0-9_-]{43}$/);
    expect(first.body.customer).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com', phone: '+447700900123' });
    expect(first.body.conversation).toEqual({ id: expect.any(Number), channel: 'web', status: 'open', handover: 'none' });
    expect(first.body.messages).toEqual([]);

    const again = await visitor().session({ widget, token: first.body.token, identity: await passFor('c-ada') });
    expect(again.status).toBe(200);
    expect(again.body.conversation.id).toBe(first.body.conversation.id);
    expect(again.body.customer?.name).toBe('Ada Lovelace');
    const read = await ada.call('/conversation');
    expect(read.status).toBe(200);
    expect(((await read.json()) as { conversation: { id: number } }).conversation.id).toBe(first.body.conversation.id);
  });

  it("a shared browser: Ada's token without her pass (none, an invalid one, another customer's) starts a new anonymous conversation showing nothing of hers", async () => {
    expect((await stack.call('/contacts/c-bob', { method: 'PUT', json: { name: 'Bob Shared' } })).status).toBe(201);
    const ada = visitor();
    const first = await ada.session({ widget, identity: await passFor('c-ada') });
    await ada.send('My address is 12 Analytical Lane');
    const pages: Array<[string | undefined, string | null]> = [
      [undefined, null],
      ['not-a-pass', null],
      [await passFor('c-bob'), 'Bob Shared'],
    ];
    for (const [identity, name] of pages) {
      const next = await visitor().session({ widget, token: first.body.token, ...(identity ? { identity } : {}) });
      expect(next.status).toBe(201);
      expect(next.body.token).not.toBe(first.body.token);
      expect(next.body.conversation.id).not.toBe(first.body.conversation.id);
      expect(next.body.messages).toEqual([]);
      expect(next.body.customer?.name ?? null).toBe(name);
    }
    // Her token still works for her own page (with her pass), and an anonymous token resumes without one.
    expect((await visitor().session({ widget, token: first.body.token, identity: await passFor('c-ada') })).status).toBe(200);
    const anonymous = await visitor().session({ widget });
    expect((await visitor().session({ widget, token: anonymous.body.token })).status).toBe(200);
  });

  it("without a pass, or with an invalid one, or an erased customer's, the visitor is anonymous; an unknown widget is 404", async () => {
    expect((await visitor().session({ widget })).body.customer).toBeNull();
    const invalid = await visitor().session({ widget, identity: 'not-a-pass' });
    expect(invalid.status).toBe(201);
    expect(invalid.body.customer).toBeNull();
    expect((await visitor().session({ widget: otherWidget, identity: await passFor('c-ada') })).body.customer).toBeNull();

    expect((await stack.call('/contacts/c-gone', { method: 'PUT', json: { name: 'Gone Soon' } })).status).toBe(201);
    const pass = await passFor('c-gone');
    expect((await stack.call('/contacts/c-gone', { method: 'DELETE' })).status).toBe(204);
    expect((await visitor().session({ widget, identity: pass })).body.customer).toBeNull();

    const response = await visitor().call('/sessions', {
      method: 'POST',
      json: { widget: 'wgt_00000000000000000000000000000000' },
      auth: false,
    });
    expect(response.status).toBe(404);
    expect(await errorCode(response)).toBe('not_found');
    const bad = await visitor().call('/sessions', { method: 'POST', json: { widget: 'nope', extra: 1 }, auth: false });
    expect(bad.status).toBe(400);
    expect(await errorCode(bad)).toBe('validation_failed');
  });

  it("another account's visitor token never works: a session of another widget starts a new conversation, and a bad token is 401", async () => {
    const mine = visitor();
    const session = await mine.session({ widget });
    const elsewhere = await visitor().session({ widget: otherWidget, token: session.body.token });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.conversation.id).not.toBe(session.body.conversation.id);
    expect(elsewhere.body.token).not.toBe(session.body.token);

    const stranger = visitor();
    stranger.token = `vis_${'A'.repeat(43)}`;
    const response = await stranger.call('/conversation');
    expect(response.status).toBe(401);
    expect(await errorCode(response)).toBe('unauthorized');
    expect((await stranger.call('/messages', { method: 'POST', json: { text: 'hi' } })).status).toBe(401);
  });

  it('a question gets an answer citing the right piece on the stream; message.received and message.sent reach the feed with the chat-met customer', async () => {
    const shopper = visitor();
    const session = await shopper.session({ widget });
    const stream = await shopper.stream();
    expect(stream.status).toBe(200);
    const asked = await shopper.send('How do I return an item for a refund?');
    expect(asked).toEqual({
      id: 1,
      author: 'customer',
      text: 'How do I return an item for a refund?',
      at: expect.stringMatching(/\+00:00$/),
      citation: null,
      offers_person: false,
    });
    const answer = await stream.waitForMessage((m) => m.author === 'assistant');
    expect(answer.id).toBe(2);
    expect(answer.citation).toEqual({ external_ref: 'returns', heading: 'Returns and refunds', url: 'https://shop.example/returns' });
    expect(answer.offers_person).toBe(false);
    expect(answer.text).toContain('30 days');
    expect(answer.text).toContain('https://shop.example/returns');
    expect(stream.messages().map((m) => m.id)).toEqual([1, 2]);
    await stream.close();

    const conversation = {
      id: session.body.conversation.id,
      channel: 'web',
      url: `http://localhost:3000/inbox/${session.body.conversation.id}`,
    };
    const [received] = await waitForEvent('message.received', (e) => e.data.conversation.id === conversation.id);
    expect(received?.data.message).toEqual({ id: 1, text: asked.text, at: asked.at });
    expect(received?.data.conversation).toEqual(conversation);
    expect(received?.data.contact).toMatchObject({ ref: null, name: '', email: null, phone: null });
    const [sent] = await waitForEvent('message.sent', (e) => e.data.conversation.id === conversation.id);
    expect(sent?.data.message).toEqual({ id: 2, text: answer.text, at: answer.at, author: 'assistant' });
    expect(sent?.data.contact.svc_id).toBe(received?.data.contact.svc_id);

    // The business attaches its ref to the chat-met customer; the very next message's event carries it (read your
    // writes: the PUT answers once the chat's model of customers holds it, ADR 014).
    const attach = await stack.call('/contacts/c-shopper', {
      method: 'PUT',
      json: { svc_id: received?.data.contact.svc_id, name: 'Sam Shopper' },
    });
    expect(attach.status).toBe(200);
    const later = await shopper.send('And how long does shipping take?');
    const [event] = await waitForEvent(
      'message.received',
      (e) => e.data.conversation.id === conversation.id && e.data.message.id === later.id,
    );
    const contact = event?.data.contact;
    expect(contact).toMatchObject({ ref: 'c-shopper', svc_id: received?.data.contact.svc_id, name: 'Sam Shopper' });
    const [laterReply] = await waitForEvent(
      'message.sent',
      (e) => e.data.conversation.id === conversation.id && e.data.message.id > later.id,
    );
    expect(laterReply?.data.contact).toMatchObject({ ref: 'c-shopper', name: 'Sam Shopper' });
  });

  it('a question in German is answered from the German piece; without a good match the assistant says so and offers a person', async () => {
    const kunde = visitor({ 'accept-language': 'de-DE,de;q=0.9' });
    await kunde.session({ widget });
    const stream = await kunde.stream();
    await kunde.send('Was kostet der Versand?');
    const answer = await stream.waitForMessage((m) => m.author === 'assistant');
    expect(answer.citation?.external_ref).toBe('versand');
    expect(answer.text).toContain('Das habe ich gefunden');

    await kunde.send('Habt ihr Quantencomputer im Angebot?');
    const none = await stream.waitForMessage((m) => m.author === 'assistant' && m.id > answer.id);
    expect(none.citation).toBeNull();
    expect(none.offers_person).toBe(true);
    await stream.close();
  });

  it('"Talk to a person" after an unanswered question → conversation.needs_human (assistant_unsure); asking in words → customer_asked', async () => {
    const unsure = visitor();
    const session = await unsure.session({ widget });
    const stream = await unsure.stream();
    await unsure.send('Do you sell quantum computers?');
    await stream.waitForMessage((m) => m.author === 'assistant' && m.offers_person);
    const response = await unsure.call('/handover', { method: 'POST', json: {} });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: session.body.conversation.id, channel: 'web', status: 'needs_human', handover: 'waiting' });
    await stream.waitForState((s) => s.handover === 'waiting');
    await stream.close();
    const [event] = await waitForEvent('conversation.needs_human', (e) => e.data.conversation.id === session.body.conversation.id);
    expect(event?.data.reason).toBe('assistant_unsure');

    const words = visitor();
    const asked = await words.session({ widget });
    await words.send('Ich möchte mit einem Menschen sprechen');
    const [byWords] = await waitForEvent('conversation.needs_human', (e) => e.data.conversation.id === asked.body.conversation.id);
    expect(byWords?.data.reason).toBe('customer_asked');
  });

  it('nobody answers within HANDOVER_WAIT → ask_reach on the stream; reach with consent → handover.created and consent.granted', async () => {
    const ada = visitor();
    const session = await ada.session({ widget, identity: await passFor('c-ada') });
    const id = session.body.conversation.id;
    const stream = await ada.stream();
    await ada.send('Can I change the delivery address of my order?');
    await stream.waitForMessage((m) => m.author === 'assistant');
    const early = await ada.call('/handover/reach', {
      method: 'POST',
      json: { channel: 'email', email: 'ada@example.com', consent: false, consent_text: 'x' },
    });
    expect(early.status).toBe(409);
    await ada.send('talk to a person please');
    await stream.waitForState((s) => s.status === 'needs_human' && s.handover === 'waiting');
    await stream.waitForState((s) => s.handover === 'ask_reach', 10_000);
    const texts = (await (await ada.call('/texts?lang=en', { auth: false })).json()) as ChatTexts;
    await stream.waitForMessage((m) => m.author === 'system' && m.text === texts.ask_reach);

    const wrongWords = await ada.call('/handover/reach', {
      method: 'POST',
      json: { channel: 'email', email: 'ada@example.com', consent: true, consent_text: 'I agree to anything' },
    });
    expect(wrongWords.status).toBe(400);
    expect(await errorCode(wrongWords)).toBe('validation_failed');
    const noEmail = await ada.call('/handover/reach', {
      method: 'POST',
      json: { channel: 'email', consent: false, consent_text: texts.reply_email_consent },
    });
    expect(noEmail.status).toBe(400);

    const reach = await ada.call('/handover/reach', {
      method: 'POST',
      json: { channel: 'email', email: 'ada@example.com', consent: true, consent_text: texts.reply_email_consent, lang: 'en' },
    });
    expect(reach.status).toBe(200);
    expect(await reach.json()).toEqual({ id, channel: 'web', status: 'handed_over', handover: 'created' });
    await stream.waitForState((s) => s.handover === 'created');
    await stream.close();

    const [created] = await waitForEvent('handover.created', (e) => e.data.conversation.id === id);
    expect(created?.data).toMatchObject({
      reason: 'nobody_answered',
      message: 'talk to a person please',
      reach: { method: 'email', email: 'ada@example.com', email_verified: true, whatsapp: '', whatsapp_verified: false, consent: true },
      contact: { ref: 'c-ada', name: 'Ada Lovelace' },
    });
    const [granted] = await waitForEvent('consent.granted', (e) => e.data.conversation.id === id);
    expect(granted?.data.consent).toMatchObject({
      purpose: 'reply_email',
      text: texts.reply_email_consent,
      lang: 'en',
      source: 'chat',
      origin: 'chat',
      granted: true,
      active: true,
    });
    expect(granted?.data.contact.ref).toBe('c-ada');
    const consents = ((await (await stack.call('/contacts/c-ada')).json()) as { consents: Array<{ origin: string; purpose: string }> })
      .consents;
    expect(consents).toEqual([expect.objectContaining({ origin: 'chat', purpose: 'reply_email' })]);
  });

  it('an anonymous visitor who leaves a WhatsApp number without consent: stored, unconfirmed, on their chat-met customer; no consent event', async () => {
    const anon = visitor();
    const session = await anon.session({ widget });
    const id = session.body.conversation.id;
    const stream = await anon.stream();
    await anon.send('I need a human');
    await stream.waitForState((s) => s.handover === 'ask_reach', 10_000);
    const texts = (await (await anon.call('/texts', { auth: false })).json()) as ChatTexts;
    const reach = await anon.call('/handover/reach', {
      method: 'POST',
      json: { channel: 'whatsapp', phone: '+4915112345678', consent: false, consent_text: texts.reply_whatsapp_consent },
    });
    expect(reach.status).toBe(200);
    await stream.waitForMessage((m) => m.author === 'system' && m.text.includes('+4915112345678'));
    await stream.close();
    const [created] = await waitForEvent('handover.created', (e) => e.data.conversation.id === id);
    expect(created?.data.reach).toEqual({
      method: 'whatsapp',
      email: '',
      email_verified: false,
      whatsapp: '+4915112345678',
      whatsapp_verified: false,
      consent: false,
    });
    expect(created?.data.contact).toMatchObject({ ref: null, phone: '+4915112345678', phone_confirmed: false });
    const found = (
      (await (await stack.call('/contacts?phone=%2B4915112345678')).json()) as {
        contacts: Array<{ ref: string | null; svc_id: number; consents: unknown[] }>;
      }
    ).contacts;
    expect(found).toEqual([
      expect.objectContaining({ ref: null, svc_id: created?.data.contact.svc_id, phone_confirmed: false, consents: [] }),
    ]);
    await sleep(500);
    expect((await feed()).filter((e) => e.event === 'consent.granted' && e.data.conversation.id === id)).toEqual([]);
    const again = await anon.call('/handover/reach', {
      method: 'POST',
      json: { channel: 'whatsapp', phone: '+4915112345678', consent: false, consent_text: texts.reply_whatsapp_consent },
    });
    expect(again.status).toBe(409);
  });

  it('a stream resumes after Last-Event-ID (or ?after=) with the messages after it only', async () => {
    const reader = visitor();
    await reader.session({ widget });
    const first = await reader.stream();
    await reader.send('How do I return an item?');
    await first.waitForMessage((m) => m.author === 'assistant');
    await first.close();
    await reader.send('What about shipping times?');
    const resumed = await reader.stream('', { 'last-event-id': '2' });
    const reply = await resumed.waitForMessage((m) => m.id === 4);
    expect(reply.author).toBe('assistant');
    expect(resumed.messages().map((m) => m.id)).toEqual([3, 4]);
    expect(resumed.events.filter((e) => e.event === 'message').map((e) => e.id)).toEqual(['3', '4']);
    await resumed.close();
    const byQuery = await reader.stream('?after=3');
    await byQuery.waitForMessage((m) => m.id === 4);
    expect(byQuery.messages().map((m) => m.id)).toEqual([4]);
    await byQuery.close();
    const bad = await reader.call('/stream?after=abc');
    expect(bad.status).toBe(400);
    expect(await errorCode(bad)).toBe('invalid_parameter');
  });

  it('at most 5 open streams per visitor token: of 20 opened at once 5 are open, the rest 429 rate_limited with Retry-After; closing one frees a slot', async () => {
    const v = visitor();
    await v.session({ widget });
    const aborts: AbortController[] = [];
    const open = () => {
      const abort = new AbortController();
      aborts.push(abort);
      return fetch(`${stack.gateway.url}/chat/v1/stream`, { headers: { authorization: `Bearer ${v.token}` }, signal: abort.signal });
    };
    try {
      const responses = await Promise.all(Array.from({ length: 20 }, open));
      const opened = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status !== 200);
      expect(opened).toHaveLength(5);
      expect(refused.map((r) => r.status)).toEqual(Array(15).fill(429));
      for (const response of refused) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await errorCode(response)).toBe('rate_limited');
      }
      expect((await open()).status).toBe(429);
      aborts[responses.indexOf(opened[0]!)]!.abort();
      let again = 429;
      for (const deadline = Date.now() + 10_000; again === 429 && Date.now() < deadline; await sleep(100)) {
        const response = await open();
        again = response.status;
        if (again === 429) await response.body?.cancel();
      }
      expect(again).toBe(200);
    } finally {
      for (const abort of aborts) abort.abort();
    }
  });

  it('allowed origins (admin widget origins): other pages get 403 forbidden_origin; allowed ones get CORS; preflights are answered', async () => {
    const account = await stack.newAccount('Origins');
    const accountWidget = await widgetOf(account);
    const admin = widgetOrigins(account.accountId, 'https://a.example,https://b.example/');
    expect({ status: admin.status, stderr: admin.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(admin.stdout)).toEqual({
      widget: { account_id: account.accountId, allowed_origins: ['https://a.example', 'https://b.example'] },
    });
    // The settings route is for the product's own services: no signed context, no entry.
    const unsigned = await fetch(`${stack.services['chat']?.internalUrl}/internal/chat/widget-settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"origins":[]}',
    });
    expect(unsigned.status).toBe(401);
    const badOrigin = widgetOrigins(account.accountId, 'https://a.example/path');
    expect(badOrigin.status).toBe(2);

    const allowed = visitor({ origin: 'https://a.example' });
    const session = await allowed.session({ widget: accountWidget });
    expect(session.status).toBe(201);
    const withCors = await allowed.call('/conversation');
    expect(withCors.status).toBe(200);
    expect(withCors.headers.get('access-control-allow-origin')).toBe('https://a.example');

    const refused = await visitor({ origin: 'https://evil.example' }).call('/sessions', {
      method: 'POST',
      json: { widget: accountWidget },
      auth: false,
    });
    expect(refused.status).toBe(403);
    expect(await errorCode(refused)).toBe('forbidden_origin');
    const stolen = visitor({ origin: 'https://evil.example' });
    stolen.token = allowed.token;
    expect((await stolen.call('/conversation')).status).toBe(403);
    // An account without a list answers any page.
    expect((await visitor({ origin: 'https://evil.example' }).session({ widget })).status).toBe(201);

    const preflight = await fetch(`${stack.gateway.url}/chat/v1/messages`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://a.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, content-type, last-event-id');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    expect(withCors.headers.get('access-control-expose-headers')).toBe('x-request-id');
    // Outside the widget's API: no CORS, and the paths no route serves stay 404 (405 where another method is served).
    const chat = stack.services['chat']!.url;
    const page = { origin: 'https://a.example', 'access-control-request-method': 'GET' };
    const health = await fetch(`${chat}/healthz`, { headers: page });
    expect(health.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${chat}/healthz`, { method: 'OPTIONS', headers: page })).status).toBe(405);
    const nowhere = await fetch(`${chat}/nowhere`, { headers: page });
    expect([nowhere.status, await errorCode(nowhere)]).toEqual([404, 'not_found']);
    expect((await fetch(`${chat}/nowhere`, { method: 'OPTIONS', headers: page })).status).toBe(404);
  });

  it('bad input is a 4xx in the error shape and writes nothing', async () => {
    const v = visitor();
    await v.session({ widget });
    for (const json of [{ text: '' }, { text: 'x'.repeat(4001) }, { text: 42 }, { text: 'hi', extra: true }]) {
      const response = await v.call('/messages', { method: 'POST', json });
      expect(response.status).toBe(400);
      expect(await errorCode(response)).toBe('validation_failed');
    }
    const conversation = (await (await v.call('/conversation')).json()) as { messages: unknown[] };
    expect(conversation.messages).toEqual([]);
    const texts = (await (await v.call('/texts?lang=fr', { auth: false })).json()) as ChatTexts;
    expect(texts.lang).toBe('fr');
    expect(texts.reply_email_consent).toContain('e-mail');
  });

  it("erasure blanks the customer's name, email and phone in conversations and messages", async () => {
    expect(
      (
        await stack.call('/contacts/c-erase', {
          method: 'PUT',
          json: { name: 'Grace Hopper', email: 'grace@example.com', phone: '+15555550100' },
        })
      ).status,
    ).toBe(201);
    const grace = visitor();
    const session = await grace.session({ widget, identity: await passFor('c-erase') });
    await grace.send('Hi, I am Grace Hopper, write to grace@example.com');
    expect((await stack.call('/contacts/c-erase', { method: 'DELETE' })).status).toBe(204);
    const deadline = Date.now() + 20_000;
    let rows: Array<{ customer_name: string; customer_email: string | null; customer_phone: string | null }> = [];
    while (Date.now() < deadline) {
      rows = await queryRows<(typeof rows)[number]>(
        stack.dataSource,
        'SELECT customer_name, customer_email, customer_phone FROM chat.conversations WHERE id = $1',
        [session.body.conversation.id],
      );
      if (rows[0]?.customer_name === '') break;
      await sleep(100);
    }
    expect(rows).toEqual([{ customer_name: '', customer_email: null, customer_phone: null }]);
    const texts = await queryRows<{ text: string }>(
      stack.dataSource,
      "SELECT text FROM chat.messages WHERE conversation_id = $1 AND author = 'customer'",
      [session.body.conversation.id],
    );
    expect(texts.map((t) => t.text)).toEqual(['Hi, I am , write to ']);
    const reopened = await visitor().session({ widget, token: session.body.token });
    expect(reopened.body.customer).toBeNull();
  });

  it('a visitor sending more than VISITOR_MESSAGES_PER_MINUTE in a conversation gets 429 with Retry-After, and nothing is written', async () => {
    const v = visitor();
    await v.session({ widget });
    for (let i = 0; i < MESSAGES_PER_MINUTE; i += 1) await v.send(`Question number ${i} about shipping times`);
    const over = await v.call('/messages', { method: 'POST', json: { text: 'One more about shipping' } });
    expect(over.status).toBe(429);
    expect(await errorCode(over)).toBe('rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const conversation = (await (await v.call('/conversation')).json()) as { messages: Array<{ author: string; text: string }> };
    expect(conversation.messages.filter((m) => m.author === 'customer')).toHaveLength(MESSAGES_PER_MINUTE);
    // Another conversation has its own count.
    const other = visitor();
    await other.session({ widget });
    expect((await other.send('Shipping to Austria?')).text).toBe('Shipping to Austria?');
  });

  // Last: it restarts the chat with a small per-address limit and trusting the local proxy.
  it('new conversations are limited per visitor address (behind TRUST_PROXY); resuming is not counted; the gateway forwards its own view of the address', async () => {
    const chat = await stack.restart('chat', 'SIGKILL', { VISITOR_CONVERSATIONS_PER_ADDRESS: '2', TRUST_PROXY: 'loopback' });
    // Counted in PostgreSQL: the suite's earlier conversations (all from 127.0.0.1) are forgotten first.
    await execute(stack.dataSource, 'DELETE FROM chat.new_conversation_counts');
    const direct = (address: string) => new ChatVisitor(chat.url, { 'x-forwarded-for': address });
    const first = direct('203.0.113.7');
    expect((await first.session({ widget })).status).toBe(201);
    expect((await direct('203.0.113.7').session({ widget })).status).toBe(201);
    const over = await direct('203.0.113.7').call('/sessions', { method: 'POST', json: { widget }, auth: false });
    expect(over.status).toBe(429);
    expect(await errorCode(over)).toBe('rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same address resuming its conversation, and another address, are served.
    expect((await direct('203.0.113.7').session({ widget, token: first.token })).status).toBe(200);
    expect((await direct('198.51.100.4').session({ widget })).status).toBe(201);
    // Through the gateway (which trusts no proxy here), a client cannot borrow an address: it is counted as its own peer.
    expect((await visitor({ 'x-forwarded-for': '198.51.100.4' }).session({ widget })).status).toBe(201);
    expect((await visitor({ 'x-forwarded-for': '198.51.100.4' }).session({ widget })).status).toBe(201);
    expect((await visitor({ 'x-forwarded-for': '198.51.100.4' }).session({ widget })).status).toBe(429);
  });
});
