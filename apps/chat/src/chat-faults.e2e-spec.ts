import { PublicEvent, WhoamiResponseDto } from '@svc/contracts';
import { queryRows } from '@svc/persistence';
import { ChatVisitor, putPieces, readFeed, Stack, startStack } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/** A broker address nothing listens on: the chat commits, its relay cannot publish. */
const NO_BROKER = 'amqp://guest:guest@127.0.0.1:1';

describe("chat faults: kill -9 between a message's commit and its publication, a service that is down (processes)", () => {
  let stack: Stack;
  let widget: string;

  const feed = (): Promise<PublicEvent[]> => readFeed(stack);
  const ofConversation = (events: PublicEvent[], id: number, kind: PublicEvent['event']) =>
    events.filter((e) => e.event === kind && (e.data as { conversation: { id: number } }).conversation.id === id);
  const pending = async (): Promise<number> =>
    (await queryRows<{ n: number }>(stack.dataSource, 'SELECT count(*)::int AS n FROM chat.outbox WHERE sent_at IS NULL'))[0]!.n;

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'knowledge-api', 'events-api', 'chat'], {
      env: { OUTBOX_POLL_INTERVAL_MS: '200' },
      appEnv: { chat: { RABBITMQ_URL: NO_BROKER, VISITOR_MESSAGES_PER_MINUTE: '100' } },
    });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    await putPieces(stack, {
      returns: { heading: 'Returns and refunds', text: 'You can return any item within 30 days of delivery for a full refund.' },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('committed but unpublished events are published after the restart, each once', async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    const { body } = await visitor.session({ widget });
    const stream = await visitor.stream();
    await visitor.send('How do I return an item?');
    await stream.waitForMessage((m) => m.author === 'assistant');
    await stream.close();
    // Both events are committed in the chat's outbox, and none has reached the feed.
    expect(await pending()).toBe(2);
    expect(ofConversation(await feed(), body.conversation.id, 'message.received')).toEqual([]);

    await stack.restart('chat', 'SIGKILL', { RABBITMQ_URL: stack.env['RABBITMQ_URL'] as string });

    const deadline = Date.now() + 30_000;
    while (ofConversation(await feed(), body.conversation.id, 'message.sent').length === 0 && Date.now() < deadline) await sleep(200);
    await sleep(1_500);
    const events = await feed();
    expect(ofConversation(events, body.conversation.id, 'message.received')).toHaveLength(1);
    expect(ofConversation(events, body.conversation.id, 'message.sent')).toHaveLength(1);
    expect(await pending()).toBe(0);
  }, 90_000);

  it('a kill -9 while messages are being published loses none and duplicates none', async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    const { body } = await visitor.session({ widget });
    const sent = [];
    for (let i = 0; i < 20; i += 1) sent.push(await visitor.send(`Question number ${i} about returns`));
    await stack.restart('chat', 'SIGKILL', { RABBITMQ_URL: stack.env['RABBITMQ_URL'] as string });

    const deadline = Date.now() + 30_000;
    while (ofConversation(await feed(), body.conversation.id, 'message.received').length < sent.length && Date.now() < deadline)
      await sleep(200);
    await sleep(1_500);
    const received = ofConversation(await feed(), body.conversation.id, 'message.received').map(
      (e) => (e.data as { message: { id: number } }).message.id,
    );
    expect(received.sort((a, b) => a - b)).toEqual(sent.map((m) => m.id));
    // Replies the killed process did not finish are answered after the restart (the sweep), once each.
    const answered = Date.now() + 30_000;
    while (ofConversation(await feed(), body.conversation.id, 'message.sent').length < sent.length && Date.now() < answered)
      await sleep(300);
    expect(ofConversation(await feed(), body.conversation.id, 'message.sent')).toHaveLength(sent.length);
  }, 120_000);

  it('knowledge-api down: the message is taken, its answer waits, and comes once when knowledge-api is back', async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    await visitor.session({ widget });
    const stream = await visitor.stream();
    await stack.services['knowledge-api']!.stop('SIGKILL');
    const question = await visitor.send('Can I return my order?');
    await sleep(3_000);
    const whileDown = (await (await visitor.call('/conversation')).json()) as { messages: Array<{ id: number; author: string }> };
    expect(whileDown.messages.map((m) => m.author)).toEqual(['customer']);

    await stack.restart('knowledge-api');
    const answer = await stream.waitForMessage((m) => m.author === 'assistant', 30_000);
    expect(answer.id).toBeGreaterThan(question.id);
    expect(answer.citation?.external_ref).toBe('returns');
    await sleep(2_500); // a second sweep finds nothing more to answer
    await stream.close();
    const after = (await (await visitor.call('/conversation')).json()) as { messages: Array<{ author: string }> };
    expect(after.messages.map((m) => m.author)).toEqual(['customer', 'assistant']);
  }, 90_000);

  it('contacts-api down: a first message is 503 with Retry-After and nothing is written; it goes through once contacts-api is back', async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    await visitor.session({ widget });
    await stack.services['contacts-api']!.stop('SIGKILL');
    const refused = await visitor.call('/messages', { method: 'POST', json: { text: 'Hello?' } });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await (await visitor.call('/conversation')).json()) as { messages: unknown[] }).messages).toEqual([]);

    await stack.restart('contacts-api');
    expect((await visitor.send('Hello?')).text).toBe('Hello?');
  }, 90_000);
});
