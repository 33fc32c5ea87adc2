import { ErrorBody, GatewayContext, PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import { ChatClient } from '@svc/internal-clients';
import { createLogger, GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import { ChatVisitor, InboxEvents, Stack, startStack, TestAccount } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/** A promise's ApiError (status and code), as the console or the MCP server would get it. */
const refusal = async (work: Promise<unknown>): Promise<{ status: number; code: string }> => {
  try {
    await work;
  } catch (err) {
    const e = err as { getStatus?: () => number; code?: string };
    return { status: e.getStatus?.() ?? 0, code: e.code ?? String(err) };
  }
  throw new Error('expected a refusal');
};

describe('chat: the back office (inbox, replies, preview, bookings, analytics) through the internal routes (processes, real PostgreSQL and RabbitMQ)', () => {
  let stack: Stack;
  let chat: ChatClient;
  let auth: InternalAuth;
  let widget: string;
  const context = (account: TestAccount = stack.account): GatewayContext => ({
    account: { id: account.accountId, name: '', plan: 'scale' },
    keyId: 'test',
    requestId: `req-${Date.now()}`,
  });
  const visitor = () => new ChatVisitor(stack.gateway.url);
  const chatUrl = () => stack.services['chat']?.internalUrl as string;
  const signedFetch = async (path: string, init: RequestInit = {}, account: TestAccount = stack.account) =>
    fetch(`${chatUrl()}${path}`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        ...(init.headers as Record<string, string>),
        [GATEWAY_CONTEXT_HEADER]: await auth.sign('chat', context(account)),
      },
    });
  const errorCode = async (response: Response) => ((await response.json()) as ErrorBody).error.code;
  const feed = async (): Promise<PublicEvent[]> => {
    const page = (await (await stack.call('/events?after=0&limit=200')).json()) as { events: PublicEvent[] };
    return page.events;
  };
  const waitForEvent = async <K extends PublicEvent['event']>(kind: K, test: (e: Extract<PublicEvent, { event: K }>) => boolean) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = (await feed()).find(
        (e): e is Extract<PublicEvent, { event: K }> => e.event === kind && test(e as Extract<PublicEvent, { event: K }>),
      );
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${kind} event in the feed`);
      await sleep(100);
    }
  };

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'chat'], {
      env: { OUTBOX_POLL_INTERVAL_MS: '200' },
      appEnv: { chat: { HANDOVER_WAIT: '5s' } },
    });
    auth = InternalAuth.fromEnv('console', stack.env);
    chat = new ChatClient({ url: chatUrl(), auth, timeoutMs: 10_000, logger: createLogger('test', 'silent') });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    const piece = (ref: string, heading: string, text: string, url?: string) =>
      stack.call(`/knowledge/${ref}`, { method: 'PUT', json: { heading, text, ...(url ? { url } : {}) } });
    expect(
      (
        await piece(
          'flat-berlin',
          'Flat in Berlin Mitte',
          'The two-room flat in Berlin Mitte can be visited on weekdays; viewings last thirty minutes.',
          'https://rent.example/berlin',
        )
      ).status,
    ).toBe(201);
    expect(
      (await piece('returns', 'Returns and refunds', 'You can return any item within 30 days of delivery for a full refund.')).status,
    ).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await chat?.close();
    await stack?.stop();
  });

  let answered: { id: number; visitor: ChatVisitor };
  let waiting: { id: number; visitor: ChatVisitor };

  describe('inbox and replies', () => {
    it('lists conversations with a message, newest activity first, with contact and last message; the inbox stream tells of each change', async () => {
      const abort = new AbortController();
      const inbox = new InboxEvents(await chat.openInboxStream(context(), undefined, abort.signal));
      const shopper = visitor();
      const session = await shopper.session({ widget });
      const stream = await shopper.stream();
      await shopper.send('Can I visit the flat in Berlin Mitte?');
      await stream.waitForMessage((m) => m.author === 'assistant');
      await stream.close();
      answered = { id: session.body.conversation.id, visitor: shopper };
      await inbox.waitFor((e) => e.conversation_id === answered.id && e.last_message_id === 2);

      const asker = visitor();
      const second = await asker.session({ widget });
      await asker.send('I want to talk to a person please');
      waiting = { id: second.body.conversation.id, visitor: asker };
      await inbox.waitFor((e) => e.conversation_id === waiting.id);

      // A session without a message is not in the inbox.
      const silent = await visitor().session({ widget });

      const page = await chat.listConversations({}, context());
      expect(page.conversations.map((c) => c.id)).toEqual([waiting.id, answered.id]);
      expect(page.more).toBe(false);
      expect(page.conversations.some((c) => c.id === silent.body.conversation.id)).toBe(false);
      const [first, second_] = page.conversations;
      expect(first).toMatchObject({
        id: waiting.id,
        channel: 'web',
        url: `http://localhost:3000/inbox/${waiting.id}`,
        status: 'needs_human',
        needs_human: true,
      });
      expect(first?.last_message).toMatchObject({ author: 'customer', text: 'I want to talk to a person please' });
      expect(second_).toMatchObject({ status: 'open', needs_human: false, last_message: { id: 2, author: 'assistant' } });
      expect(second_?.contact).toMatchObject({ ref: null, svc_id: expect.any(Number) });
      expect(second_?.contact).not.toHaveProperty('consents');
      expect(page.next_after).toMatch(/^\d+\.\d+$/);

      // Filters and paging.
      expect((await chat.listConversations({ needs_human: true }, context())).conversations.map((c) => c.id)).toEqual([waiting.id]);
      expect((await chat.listConversations({ needs_human: false }, context())).conversations.map((c) => c.id)).toEqual([answered.id]);
      expect((await chat.listConversations({ channel: 'whatsapp' }, context())).conversations).toEqual([]);
      const one = await chat.listConversations({ limit: 1 }, context());
      expect(one.conversations.map((c) => c.id)).toEqual([waiting.id]);
      expect(one.more).toBe(true);
      const two = await chat.listConversations({ limit: 1, after: one.next_after as string }, context());
      expect(two.conversations.map((c) => c.id)).toEqual([answered.id]);
      expect(two.more).toBe(false);

      // Resumed with Last-Event-ID: what changed from there on.
      abort.abort();
      await inbox.closed();
      const from = inbox.events.find((e) => e.data.conversation_id === answered.id) as { id: string };
      const resumeAbort = new AbortController();
      const resumed = new InboxEvents(await chat.openInboxStream(context(), from.id, resumeAbort.signal));
      await resumed.waitFor((e) => e.conversation_id === waiting.id);
      resumeAbort.abort();
      await resumed.closed();
    });

    it('a team reply reaches the widget and the feed (message.sent, author team), ends the wait for a person and clears needs_human', async () => {
      const stream = await waiting.visitor.stream();
      const reply = await chat.reply(waiting.id, 'Hello, this is Maria from the team.', context());
      expect(reply.message).toEqual({
        id: expect.any(Number),
        text: 'Hello, this is Maria from the team.',
        author: 'team',
        at: expect.stringMatching(/\+00:00$/),
        cited_piece: null,
      });
      const shown = await stream.waitForMessage((m) => m.author === 'team');
      expect(shown).toMatchObject({ id: reply.message.id, text: reply.message.text });
      await stream.close();
      const sent = await waitForEvent('message.sent', (e) => e.data.conversation.id === waiting.id && e.data.message.author === 'team');
      expect(sent.data.message).toEqual({ id: reply.message.id, text: reply.message.text, at: reply.message.at, author: 'team' });
      const read = await chat.getConversation(waiting.id, context());
      expect(read.conversation).toMatchObject({
        id: waiting.id,
        status: 'needs_human',
        needs_human: false,
        last_message: { id: reply.message.id, author: 'team' },
      });
      expect(read.messages.map((m) => m.author)).toEqual(expect.arrayContaining(['customer', 'system', 'team']));
      const answer = (await chat.getConversation(answered.id, context())).messages[1];
      expect(answer?.cited_piece).toEqual({
        external_ref: 'flat-berlin',
        heading: 'Flat in Berlin Mitte',
        url: 'https://rent.example/berlin',
      });

      // A reply within HANDOVER_WAIT (5 s here): the customer is never asked how to reach them.
      const quick = visitor();
      const session = await quick.session({ widget });
      const quickStream = await quick.stream();
      await quick.send('Can a person help me please?');
      await chat.reply(session.body.conversation.id, 'Sure, how can I help?', context());
      await quickStream.waitForMessage((m) => m.author === 'team');
      await sleep(6_500);
      expect(quickStream.states().some((st) => st.handover === 'ask_reach')).toBe(false);
      expect(quickStream.messages().map((m) => m.author)).toEqual(['customer', 'system', 'team']);
      await quickStream.close();
      // The customer writes again: the conversation needs a person again.
      await quick.send('Thanks! One more question.');
      expect((await chat.getConversation(session.body.conversation.id, context())).conversation.needs_human).toBe(true);
    });

    it('another account sees none of it: its list is empty, the conversation and a reply to it are 404', async () => {
      expect((await chat.listConversations({}, context(stack.other))).conversations).toEqual([]);
      expect(await refusal(chat.getConversation(waiting.id, context(stack.other)))).toEqual({ status: 404, code: 'not_found' });
      const before = (await chat.getConversation(waiting.id, context())).messages.length;
      expect(await refusal(chat.reply(waiting.id, 'not mine', context(stack.other)))).toEqual({ status: 404, code: 'not_found' });
      expect((await chat.getConversation(waiting.id, context())).messages).toHaveLength(before);
    });

    it('bad input is a 4xx in the error shape and changes nothing; an unsigned or wrongly addressed call is 401', async () => {
      const before = (await chat.getConversation(waiting.id, context())).messages.length;
      for (const query of ['limit=0', 'limit=201', 'limit=x', 'after=yesterday', 'needs_human=maybe', 'channel=fax', 'extra=1']) {
        const response = await signedFetch(`/internal/chat/conversations?${query}`);
        expect([query, response.status]).toEqual([query, 400]);
        expect(await errorCode(response)).toBe('invalid_parameter');
      }
      for (const body of ['{}', '{"text":""}', '{"text":"   "}', '{"text":"x","author":"team"}', `{"text":"${'x'.repeat(4001)}"}`]) {
        const response = await signedFetch(`/internal/chat/conversations/${waiting.id}/replies`, { method: 'POST', body });
        expect([body.slice(0, 30), response.status]).toEqual([body.slice(0, 30), 400]);
        expect(await errorCode(response)).toBe('validation_failed');
      }
      expect((await signedFetch('/internal/chat/conversations/abc')).status).toBe(404);
      expect((await signedFetch('/internal/chat/inbox/stream', { headers: { 'last-event-id': 'nope' } })).status).toBe(400);
      expect((await chat.getConversation(waiting.id, context())).messages).toHaveLength(before);

      expect((await fetch(`${chatUrl()}/internal/chat/conversations`)).status).toBe(401);
      const forKnowledge = await fetch(`${chatUrl()}/internal/chat/conversations`, {
        headers: { [GATEWAY_CONTEXT_HEADER]: await auth.sign('knowledge-api', context()) },
      });
      expect(forKnowledge.status).toBe(401);
      expect(await refusal(chat.openInboxStream(context(stack.other), 'nope'))).toEqual({ status: 400, code: 'invalid_parameter' });
    });
  });

  describe('bookings', () => {
    const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    let requested: number;

    it('the customer requests a booking for the piece the last answer cited; they are told in the conversation; the team lists it', async () => {
      const shopper = answered.visitor;
      const stream = await shopper.stream();
      const startsAt = future(7);
      const response = await shopper.call('/bookings', { method: 'POST', json: { starts_at: startsAt, note: 'Afternoon if possible' } });
      expect(response.status).toBe(201);
      const { booking } = (await response.json()) as { booking: Record<string, unknown> };
      expect(booking).toEqual({
        id: expect.any(Number),
        conversation_id: answered.id,
        listing_ref: 'flat-berlin',
        starts_at: startsAt.replace('Z', '.000000+00:00'),
        note: 'Afternoon if possible',
        status: 'requested',
        created_by: 'customer',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      requested = booking['id'] as number;
      const told = await stream.waitForMessage((m) => m.author === 'system' && m.text.includes('booking request'));
      expect(told.text).toBe(
        `Your booking request for Flat in Berlin Mitte on ${startsAt.slice(0, 10)} ${startsAt.slice(11, 16)} UTC was received. We will confirm it here.`,
      );

      const page = await chat.listBookings({}, context());
      expect(page.bookings.map((b) => b.id)).toEqual([requested]);
      expect(page.bookings[0]?.contact).toMatchObject({ svc_id: expect.any(Number), ref: null });
      expect(page).toMatchObject({ next_after: requested, more: false });
      expect((await chat.listBookings({ status: 'confirmed' }, context())).bookings).toEqual([]);

      // Confirmed, then cancelled: each change is told; what the transitions do not allow is 409.
      const confirmed = await chat.updateBooking(requested, 'confirmed', context());
      expect(confirmed.booking).toMatchObject({ id: requested, status: 'confirmed' });
      await stream.waitForMessage((m) => m.author === 'system' && m.text.includes('is confirmed'));
      expect(await refusal(chat.updateBooking(requested, 'declined', context()))).toEqual({ status: 409, code: 'conflict' });
      expect((await chat.updateBooking(requested, 'cancelled', context())).booking.status).toBe('cancelled');
      await stream.waitForMessage((m) => m.author === 'system' && m.text.includes('was cancelled'));
      expect(await refusal(chat.updateBooking(requested, 'confirmed', context()))).toEqual({ status: 409, code: 'conflict' });
      await stream.close();
      expect((await chat.listBookings({ status: 'cancelled' }, context())).bookings.map((b) => b.id)).toEqual([requested]);
    });

    it('without an answer that cited a piece the customer cannot request one (409); a past or zoneless time is 400', async () => {
      const response = await waiting.visitor.call('/bookings', { method: 'POST', json: { starts_at: future(3) } });
      expect(response.status).toBe(409);
      expect(await errorCode(response)).toBe('conflict');
      for (const starts_at of [new Date(Date.now() - 3_600_000).toISOString(), '2030-01-01T10:00:00', 'tomorrow', '2030-02-30T10:00:00Z']) {
        const bad = await answered.visitor.call('/bookings', { method: 'POST', json: { starts_at } });
        expect([starts_at, bad.status]).toEqual([starts_at, 400]);
        expect(await errorCode(bad)).toBe('validation_failed');
      }
      expect((await chat.listBookings({}, context())).bookings).toHaveLength(1);
    });

    it('the team and an agent create bookings for a conversation, confirm or decline them; the customer is told', async () => {
      const stream = await waiting.visitor.stream();
      const team = await chat.createBooking({ conversation_id: waiting.id, starts_at: future(2), created_by: 'team' }, context());
      expect(team.booking).toMatchObject({
        conversation_id: waiting.id,
        listing_ref: null,
        status: 'requested',
        created_by: 'team',
        note: '',
      });
      const agent = await chat.createBooking(
        { conversation_id: waiting.id, listing_ref: 'flat-berlin', starts_at: future(5), note: 'Keys at the desk', created_by: 'agent' },
        context(),
      );
      expect(agent.booking).toMatchObject({ listing_ref: 'flat-berlin', created_by: 'agent', note: 'Keys at the desk' });
      expect((await chat.updateBooking(team.booking.id, 'declined', context())).booking.status).toBe('declined');
      expect((await chat.updateBooking(agent.booking.id, 'confirmed', context())).booking.status).toBe('confirmed');
      await stream.waitForMessage((m) => m.author === 'system' && m.text.includes('your appointment') && m.text.includes('declined'));
      await stream.waitForMessage((m) => m.author === 'system' && m.text.includes('flat-berlin') && m.text.includes('is confirmed'));
      await stream.close();
      const all = await chat.listBookings({ limit: 2 }, context());
      expect(all.bookings.map((b) => b.id)).toEqual([requested, team.booking.id]);
      expect(all.more).toBe(true);
      expect((await chat.listBookings({ after: all.next_after }, context())).bookings.map((b) => b.id)).toEqual([agent.booking.id]);
    });

    it("another account cannot list, change or book into this account's conversations (404); bad input is 400", async () => {
      expect((await chat.listBookings({}, context(stack.other))).bookings).toEqual([]);
      expect(await refusal(chat.updateBooking(requested, 'cancelled', context(stack.other)))).toEqual({ status: 404, code: 'not_found' });
      expect(
        await refusal(chat.createBooking({ conversation_id: waiting.id, starts_at: future(1), created_by: 'agent' }, context(stack.other))),
      ).toEqual({ status: 404, code: 'not_found' });
      expect(await refusal(chat.updateBooking(999_999, 'cancelled', context()))).toEqual({ status: 404, code: 'not_found' });
      for (const query of ['limit=0', 'status=maybe', 'after=-1']) {
        const response = await signedFetch(`/internal/chat/bookings?${query}`);
        expect([query, response.status]).toEqual([query, 400]);
        expect(await errorCode(response)).toBe('invalid_parameter');
      }
      for (const body of [
        { conversation_id: waiting.id, starts_at: future(1), created_by: 'customer' },
        { conversation_id: 'x', starts_at: future(1), created_by: 'team' },
        { conversation_id: waiting.id, created_by: 'team' },
        { conversation_id: waiting.id, starts_at: '2030-01-01', created_by: 'team' },
      ]) {
        const response = await signedFetch('/internal/chat/bookings', { method: 'POST', body: JSON.stringify(body) });
        expect([body, response.status]).toEqual([body, 400]);
        expect(await errorCode(response)).toBe('validation_failed');
      }
      const patch = await signedFetch(`/internal/chat/bookings/${requested}`, { method: 'PATCH', body: '{"status":"requested"}' });
      expect(patch.status).toBe(400);
      expect((await signedFetch('/internal/chat/bookings/abc', { method: 'PATCH', body: '{"status":"cancelled"}' })).status).toBe(404);
      expect((await chat.listBookings({}, context())).bookings.map((b) => b.status)).toEqual(['cancelled', 'declined', 'confirmed']);
    });
  });

  describe('analytics', () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

    it("a new account's figures equal the activity the test made: conversations, messages, hand-overs, team reply time, consents, bookings, top pieces and questions", async () => {
      const account = await stack.newAccount('Analytics Rentals');
      const ctx = context(account);
      const its = ((await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto).widget;
      const put = await stack.call('/knowledge/flat-hamburg', {
        method: 'PUT',
        key: account.key,
        json: { heading: 'Flat in Hamburg', text: 'The flat in Hamburg Altona has three rooms and a balcony facing the river.' },
      });
      expect(put.status).toBe(201);

      const renter = visitor();
      await renter.session({ widget: its });
      const renterStream = await renter.stream();
      await renter.send('Does the flat in Hamburg have a balcony?');
      await renterStream.waitForMessage((m) => m.author === 'assistant' && m.citation?.external_ref === 'flat-hamburg');
      await renterStream.close();
      const booked = await renter.call('/bookings', {
        method: 'POST',
        json: { starts_at: new Date(Date.now() + 86_400_000).toISOString() },
      });
      expect(booked.status).toBe(201);
      await chat.updateBooking(((await booked.json()) as { booking: { id: number } }).booking.id, 'confirmed', ctx);

      const sailor = visitor();
      const sailing = await sailor.session({ widget: its });
      const sailorStream = await sailor.stream();
      await sailor.send('Do you rent sailing boats?');
      await sailorStream.waitForMessage((m) => m.author === 'assistant' && m.offers_person);
      await sailorStream.close();
      expect((await sailor.call('/handover', { method: 'POST', json: {} })).status).toBe(200);
      await chat.reply(sailing.body.conversation.id, 'We only rent flats, sorry.', ctx);
      const texts = (await (await sailor.call('/texts?lang=en', { auth: false })).json()) as { reply_email_consent: string };
      const reach = await sailor.call('/handover/reach', {
        method: 'POST',
        json: { channel: 'email', email: 'sailor@example.com', consent: true, consent_text: texts.reply_email_consent },
      });
      expect(reach.status).toBe(200);

      // consent.granted comes back from contacts-api through the broker: wait for it.
      const from = day(-1);
      const to = day(1);
      const deadline = Date.now() + 20_000;
      let figures = await chat.analytics(from, to, ctx);
      while (!figures.days.some((d) => d.consents.granted['reply_email'] === 1) && Date.now() < deadline) {
        await sleep(200);
        figures = await chat.analytics(from, to, ctx);
      }
      expect(figures.days.map((d) => d.date)).toEqual([from, day(0), to]);
      const sum = (pick: (d: (typeof figures.days)[number]) => number) => figures.days.reduce((total, d) => total + pick(d), 0);
      expect({
        web: sum((d) => d.conversations.web),
        whatsapp: sum((d) => d.conversations.whatsapp),
        received: sum((d) => d.messages_received),
        assistant: sum((d) => d.messages_sent.assistant),
        team: sum((d) => d.messages_sent.team),
        closed: sum((d) => d.closed_by_assistant),
        customerAsked: sum((d) => d.handovers.customer_asked),
        unsure: sum((d) => d.handovers.assistant_unsure),
        nobody: sum((d) => d.handovers.nobody_answered),
        confirmations: sum((d) => d.confirmations.email + d.confirmations.phone),
        granted: sum((d) => d.consents.granted['reply_email'] ?? 0),
        withdrawn: sum((d) => Object.values(d.consents.withdrawn).reduce((a, b) => a + b, 0)),
        requested: sum((d) => d.bookings.requested),
        confirmed: sum((d) => d.bookings.confirmed),
      }).toEqual({
        web: 2,
        whatsapp: 0,
        received: 2,
        assistant: 2,
        team: 1,
        closed: 1,
        customerAsked: 0,
        unsure: 1,
        nobody: 1,
        confirmations: 0,
        granted: 1,
        withdrawn: 0,
        requested: 1,
        confirmed: 1,
      });
      const medians = figures.days.map((d) => d.median_first_team_reply_seconds).filter((m): m is number => m !== null);
      expect(medians).toHaveLength(1);
      expect(medians[0]).toBeGreaterThanOrEqual(0);
      expect(figures.top_cited_pieces).toEqual([{ external_ref: 'flat-hamburg', heading: 'Flat in Hamburg', count: 1 }]);
      expect(figures.top_unanswered_questions).toEqual([{ question: 'Do you rent sailing boats?', count: 1 }]);

      // The first account's activity is not in it, and this account's is not in another's.
      const others = await chat.analytics(from, to, context(stack.other));
      expect(others.days.every((d) => d.messages_received === 0 && d.bookings.requested === 0)).toBe(true);
    });

    it('a bad or too long range is 400 invalid_parameter', async () => {
      for (const query of [
        'from=2026-02-30&to=2026-03-01',
        'from=2026-03-02&to=2026-03-01',
        'from=2025-01-01&to=2026-12-31',
        'from=2026-03-01',
        'from=03/01/2026&to=2026-03-02',
        '',
      ]) {
        const response = await signedFetch(`/internal/chat/analytics?${query}`);
        expect([query, response.status]).toEqual([query, 400]);
        expect(await errorCode(response)).toBe('invalid_parameter');
      }
    });
  });

  describe('the assistant preview', () => {
    it('answers as the assistant would, citing the piece, and writes no conversation; without a match it offers a person', async () => {
      const before = (await chat.listConversations({ limit: 200 }, context())).conversations.length;
      const preview = await chat.previewAnswer('When can I visit the flat in Berlin Mitte?', undefined, context());
      expect(preview).toMatchObject({
        cited_piece: { external_ref: 'flat-berlin', heading: 'Flat in Berlin Mitte', url: 'https://rent.example/berlin' },
        offers_person: false,
        lang: 'en',
      });
      expect(preview.answer).toContain('thirty minutes');
      const none = await chat.previewAnswer('Do you sell quantum computers?', 'de-CH', context());
      expect(none).toMatchObject({ cited_piece: null, offers_person: true, lang: 'de' });
      // Another account's pieces are not its own.
      expect(
        (await chat.previewAnswer('When can I visit the flat in Berlin Mitte?', undefined, context(stack.other))).cited_piece,
      ).toBeNull();
      expect((await chat.listConversations({ limit: 200 }, context())).conversations.length).toBe(before);
      for (const body of ['{}', '{"question":""}', '{"question":"x","lang":"not a tag!"}']) {
        const response = await signedFetch('/internal/chat/assistant/preview', { method: 'POST', body });
        expect(response.status).toBe(400);
        expect(await errorCode(response)).toBe('validation_failed');
      }
    });
  });
});
