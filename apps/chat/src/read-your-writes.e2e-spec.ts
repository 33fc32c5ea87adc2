import { PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import { ChatVisitor, Stack, startStack } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

type Received = Extract<PublicEvent, { event: 'message.received' }>;

/**
 * Read your writes (CONTRACT.md, ADR 014): once `PUT /contacts/{ref}` has answered, every event of that
 * customer the chat emits after the answer carries what it wrote; a message sent right after the answer
 * included. Processes over real PostgreSQL and RabbitMQ; the business's calls go through the gateway.
 */
describe('chat: events after a write of a customer carry it at once (read your writes)', () => {
  let stack: Stack;
  let widget: string;
  let after = 0;
  const seen: Received[] = [];

  /** The account's message.received events so far, read on from where the last look stopped. */
  const received = async (): Promise<Received[]> => {
    for (;;) {
      const page = (await (await stack.call(`/events?after=${after}&limit=200`)).json()) as {
        events: PublicEvent[];
        next_after: number;
        more: boolean;
      };
      seen.push(...page.events.filter((e): e is Received => e.event === 'message.received'));
      after = page.next_after;
      if (!page.more) return seen;
    }
  };
  /** The message.received of each (conversation, message id), waiting until every one is in the feed. */
  const eventsOf = async (messages: Array<{ conversation: number; message: number }>): Promise<Received[]> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const all = await received();
      const found = messages.map(({ conversation, message }) =>
        all.find((e) => e.data.conversation.id === conversation && e.data.message.id === message),
      );
      if (found.every((e) => e !== undefined)) return found as Received[];
      if (Date.now() > deadline) throw new Error(`${found.filter((e) => !e).length} events never reached the feed`);
      await sleep(100);
    }
  };
  /** A visitor who wrote once: a chat-met customer (ref null), with their conversation and svc_id. */
  const chatMet = async (count: number) => {
    const visitors = await Promise.all(
      Array.from({ length: count }, async () => {
        const visitor = new ChatVisitor(stack.gateway.url);
        const session = await visitor.session({ widget });
        const first = await visitor.send('Hello, is anyone there?');
        return { visitor, conversation: session.body.conversation.id, first: first.id };
      }),
    );
    const events = await eventsOf(visitors.map((v) => ({ conversation: v.conversation, message: v.first })));
    return visitors.map((v, i) => ({ ...v, svcId: (events[i] as Received).data.contact.svc_id }));
  };
  /** Attaches `ref` (and a name) to the chat-met customer, then sends their next message as soon as the PUT has answered. */
  const attachThenWrite = async (met: { visitor: ChatVisitor; conversation: number; svcId: number }, ref: string) => {
    const put = await stack.call(`/contacts/${ref}`, { method: 'PUT', json: { svc_id: met.svcId, name: `Name of ${ref}` } });
    expect(put.status).toBe(200);
    const next = await met.visitor.send('I would like to know about my order');
    return { conversation: met.conversation, message: next.id };
  };

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'knowledge-api', 'events-api', 'chat'], {
      env: { OUTBOX_POLL_INTERVAL_MS: '200' },
      appEnv: { gateway: { WRITE_LIMIT_PER_MINUTE: '100000', WRITE_LIMIT_PER_HOUR: '100000' } },
    });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('12 times in a row: the message sent right after the attach carries the ref and the new name', async () => {
    for (let i = 0; i < 12; i += 1) {
      const [met] = await chatMet(1);
      const next = await attachThenWrite(met!, `serial-${i}`);
      const [event] = await eventsOf([next]);
      expect(event?.data.contact).toMatchObject({ ref: `serial-${i}`, svc_id: met!.svcId, name: `Name of serial-${i}` });
    }
  }, 240_000);

  it('50 attach-then-message pairs at once: every message carries its ref', async () => {
    const met = await chatMet(50);
    const sent = await Promise.all(met.map((m, i) => attachThenWrite(m, `pair-${i}`)));
    const events = await eventsOf(sent);
    expect(events.map((e) => e.data.contact.ref)).toEqual(met.map((_, i) => `pair-${i}`));
  }, 240_000);

  it('a new email and phone written by PUT are in the very next event', async () => {
    const [met] = await chatMet(1);
    await attachThenWrite(met!, 'details');
    const put = await stack.call('/contacts/details', { method: 'PUT', json: { email: 'new@example.com', phone: '+447700900999' } });
    expect(put.status).toBe(200);
    const next = await met!.visitor.send('Did you get my new address?');
    const [event] = await eventsOf([{ conversation: met!.conversation, message: next.id }]);
    expect(event?.data.contact).toMatchObject({ ref: 'details', email: 'new@example.com', phone: '+447700900999' });
  }, 60_000);

  it('after DELETE has answered, the next message carries none of the erased customer', async () => {
    const [met] = await chatMet(1);
    await attachThenWrite(met!, 'erased');
    expect((await stack.call('/contacts/erased', { method: 'DELETE' })).status).toBe(204);
    const next = await met!.visitor.send('Am I still known?');
    const [event] = await eventsOf([{ conversation: met!.conversation, message: next.id }]);
    expect(event?.data.contact).toMatchObject({ ref: null, name: '', email: null, phone: null });
    expect(event?.data.contact.svc_id).not.toBe(met!.svcId);
  }, 60_000);

  it('the chat down: a write answers within CHAT_MODEL_WAIT_MS, and the chat follows from the broker once back', async () => {
    const [met] = await chatMet(1);
    await attachThenWrite(met!, 'while-down');
    const chat = stack.services['chat']!;
    await chat.stop('SIGKILL');
    try {
      const started = Date.now();
      const put = await stack.call('/contacts/while-down', { method: 'PUT', json: { name: 'Renamed while the chat was down' } });
      expect(put.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await stack.restart('chat');
    }
    const deadline = Date.now() + 20_000;
    let name = '';
    while (name !== 'Renamed while the chat was down' && Date.now() < deadline) {
      const next = await met!.visitor.send('Still there?');
      const [event] = await eventsOf([{ conversation: met!.conversation, message: next.id }]);
      name = event?.data.contact.name ?? '';
      if (name !== 'Renamed while the chat was down') await sleep(250);
    }
    expect(name).toBe('Renamed while the chat was down');
  }, 90_000);
});
