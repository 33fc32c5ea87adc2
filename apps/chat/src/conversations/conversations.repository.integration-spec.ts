import { ChatMessage, EventContact } from '@svc/contracts';
import { domainMessage } from '@svc/messaging';
import { execute, queryRows } from '@svc/persistence';
import { suiteSchemaDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ErasureService } from '../erasure/erasure.service';
import { HandoverSweeper } from '../handover/handover-sweeper';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from '../migrations';
import { createLogger } from '@svc/platform';
import { ConversationsRepository, ConversationTransaction } from './conversations.repository';
import { CustomersRepository } from './customers.repository';
import { newVisitorToken, visitorTokenHash } from './visitor-token';

describe('ConversationsRepository (real PostgreSQL)', () => {
  const db = suiteSchemaDatabase({ schema: CHAT_SCHEMA, migrations: CHAT_MIGRATIONS, poolSize: 12 });
  let repo: ConversationsRepository;
  let customers: CustomersRepository;
  const account = randomUUID();

  beforeAll(() => {
    repo = new ConversationsRepository(db.dataSource);
    customers = new CustomersRepository(db.dataSource);
  });

  const conversation = (customer = null as Parameters<ConversationsRepository['create']>[3]) =>
    repo.create(account, visitorTokenHash(newVisitorToken()), 'en', customer);

  it('finds a conversation by its token hash only, and a token is stored only as its hash', async () => {
    const token = newVisitorToken();
    const created = await repo.create(account, visitorTokenHash(token), 'de', null);
    expect(await repo.byTokenHash(visitorTokenHash(token))).toEqual({
      ...created,
      recent_customer_messages: 0,
      customer: null,
      token_issued_at: expect.any(String),
      token_age_ms: expect.any(Number),
    });
    expect(await repo.byTokenHash(visitorTokenHash(newVisitorToken()))).toBeUndefined();
    const stored = await queryRows<{ token_hash: Buffer }>(db.dataSource, 'SELECT token_hash FROM chat.conversations WHERE id = $1', [
      created.id,
    ]);
    expect(stored[0]?.token_hash.toString('utf8')).not.toContain(token.slice(4));
    expect(created).toMatchObject({
      account_id: account,
      channel: 'web',
      lang: 'de',
      status: 'open',
      handover: 'none',
      customer_svc_id: null,
    });
  });

  it('numbers messages 1, 2, 3… per conversation, also when they are written at the same time', async () => {
    const a = await conversation();
    const b = await conversation();
    const writes = Array.from({ length: 10 }, (_, i) =>
      repo.transaction((tx) => tx.addMessage(account, i % 2 ? a.id : b.id, { author: 'customer', text: `m${i}` })),
    );
    await Promise.all(writes);
    expect((await repo.messages(account, a.id)).map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
    expect((await repo.messages(account, b.id, 2)).map((m) => m.id)).toEqual([3, 4, 5]);
    expect(await repo.messages(randomUUID(), a.id)).toEqual([]);
    const [first] = await repo.messages(account, a.id);
    expect(first).toEqual({
      id: 1,
      author: 'customer',
      text: expect.stringMatching(/^m\d$/),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\.\d{6}\+00:00$/),
      citation: null,
      offers_person: false,
    });
  });

  it("limits the customer's messages a minute exactly, also when 30 arrive at once, and says when the next may come", async () => {
    const token = newVisitorToken();
    const c = await repo.create(account, visitorTokenHash(token), 'en', null);
    await repo.transaction((tx) => tx.addMessage(account, c.id, { author: 'assistant', text: 'not counted either' }));
    const sent = await Promise.all(
      Array.from({ length: 30 }, (_, i) => repo.addCustomerMessage(account, c.id, { author: 'customer', text: `m${i}` }, 5)),
    );
    expect(sent.filter(Boolean)).toHaveLength(5);
    expect((await repo.messages(account, c.id)).filter((m) => m.author === 'customer')).toHaveLength(5);
    const recent = await repo.recentCustomerMessages(account, c.id);
    expect(recent.count).toBe(5);
    expect(recent.retryAfterMs).toBeGreaterThan(50_000);
    expect(recent.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(await repo.recentCustomerMessages(randomUUID(), c.id)).toEqual({ count: 0, retryAfterMs: 0 });
    // The visitor's token reads the count with the conversation (the send's first look, before contacts-api).
    expect((await repo.byTokenHash(visitorTokenHash(token)))?.recent_customer_messages).toBe(5);
    // A minute later they have left the window.
    await execute(
      db.dataSource,
      `UPDATE chat.conversations SET recent_customer_at = ARRAY(SELECT t - interval '61 seconds' FROM unnest(recent_customer_at) t) WHERE id = $1`,
      [c.id],
    );
    expect(await repo.addCustomerMessage(account, c.id, { author: 'customer', text: 'again' }, 5)).toMatchObject({ text: 'again' });
    expect((await repo.recentCustomerMessages(account, c.id)).count).toBe(1);
  });

  it("writes a message's event to the outbox in the same statement, with the message's id and time", async () => {
    const c = await conversation();
    const event = (message: ChatMessage) => domainMessage('message.received', account, { message, conversation: { id: c.id } } as never);
    const added = await repo.addCustomerMessage(account, c.id, { author: 'customer', text: 'hi', event }, 5);
    const [outbox] = await queryRows<{ routing_key: string; body: { kind: string; data: { message: ChatMessage } } }>(
      db.dataSource,
      `SELECT routing_key, body FROM chat.outbox WHERE body -> 'data' -> 'conversation' ->> 'id' = $1::text`,
      [String(c.id)],
    );
    expect(outbox?.routing_key).toBe('message.received');
    expect(outbox?.body.data.message).toMatchObject({ id: added?.id, at: added?.at, text: 'hi' });
    // A limited message writes no event either.
    await repo.addCustomerMessage(account, c.id, { author: 'customer', text: 'over', event }, 1);
    expect(
      await queryRows(db.dataSource, `SELECT 1 FROM chat.outbox WHERE body -> 'data' -> 'conversation' ->> 'id' = $1::text`, [
        String(c.id),
      ]),
    ).toHaveLength(1);
  });

  it("a stream reads the messages after an id and the conversation's state in one go", async () => {
    const c = await conversation();
    const tokenIssuedAt = expect.any(String) as unknown as string;
    expect(await repo.streamRead(account, c.id, 0)).toEqual({ messages: [], state: { status: 'open', handover: 'none' }, tokenIssuedAt });
    for (const text of ['one', 'two', 'three']) await repo.transaction((tx) => tx.addMessage(account, c.id, { author: 'customer', text }));
    await repo.transaction((tx) => tx.setHandover(account, c.id, { status: 'needs_human', handover: 'waiting' }));
    expect(await repo.streamRead(account, c.id, 1)).toEqual({
      messages: await repo.messages(account, c.id, 1),
      state: { status: 'needs_human', handover: 'waiting' },
      tokenIssuedAt,
    });
    expect((await repo.streamRead(account, c.id, 0, 2))?.messages.map((m) => m.text)).toEqual(['one', 'two']);
    expect(await repo.streamRead(account, c.id, 3)).toEqual({
      messages: [],
      state: { status: 'needs_human', handover: 'waiting' },
      tokenIssuedAt,
    });
    expect(await repo.streamRead(randomUUID(), c.id, 0)).toBeUndefined();
  });

  it('a customer message is leased to its writer from birth and answered once', async () => {
    const c = await conversation();
    const message = await repo.addCustomerMessage(account, c.id, { author: 'customer', text: 'hello?', replyPending: true }, 5);
    expect(message?.reply_pending).toBe(true);
    // A stale sweep leaves a leased message alone.
    await execute(db.dataSource, `UPDATE chat.messages SET at = now() - interval '1 minute' WHERE conversation_id = $1`, [c.id]);
    expect((await repo.claimStaleReplies(1_000, 30_000, 10)).filter((p) => p.conversation.id === c.id)).toEqual([]);
    // Once the lease has run out, the sweep takes it over.
    await execute(db.dataSource, `UPDATE chat.messages SET reply_lease_until = now() - interval '1 second' WHERE conversation_id = $1`, [
      c.id,
    ]);
    expect((await repo.claimStaleReplies(1_000, 30_000, 10)).filter((p) => p.conversation.id === c.id)).toHaveLength(1);
    // Three replies at once (the writer and two sweeps): one is added.
    const replies = await Promise.all(
      [1, 2, 3].map((n) => repo.addReply(account, c.id, message?.id ?? 0, { author: 'assistant', text: `r${n}` })),
    );
    expect(replies.filter(Boolean)).toHaveLength(1);
    expect((await repo.messages(account, c.id)).map((m) => m.author)).toEqual(['customer', 'assistant']);
    expect(await repo.addReply(account, c.id, message?.id ?? 0, { author: 'assistant', text: 'late' })).toBeUndefined();
  });

  it("a failed answer is tried again after a delay that grows with the question's age (2 to 30 s)", async () => {
    const c = await conversation();
    const asked = async (ageSeconds: number) => {
      const message = await repo.addCustomerMessage(account, c.id, { author: 'customer', text: 'q', replyPending: true }, 100);
      await execute(
        db.dataSource,
        `UPDATE chat.messages SET at = now() - $2 * interval '1 second' WHERE conversation_id = $1 AND id = $3`,
        [c.id, ageSeconds, message?.id ?? 0],
      );
      await repo.retryReplyLater(account, c.id, message?.id ?? 0);
      const [row] = await queryRows<{ seconds: number }>(
        db.dataSource,
        `SELECT round(extract(epoch FROM reply_lease_until - now()))::int AS seconds FROM chat.messages WHERE conversation_id = $1 AND id = $2`,
        [c.id, message?.id ?? 0],
      );
      return row?.seconds;
    };
    expect(await asked(1)).toBe(2);
    expect(await asked(40)).toBe(10);
    expect(await asked(600)).toBe(30);
  });

  it('counts the failed tries of an answer; the sweep claims a message with them; none once it is answered', async () => {
    const c = await conversation();
    const message = await repo.addCustomerMessage(account, c.id, { author: 'customer', text: 'counted?', replyPending: true }, 5);
    const id = message?.id ?? 0;
    expect(await repo.retryReplyLater(account, c.id, id)).toBe(1);
    expect(await repo.retryReplyLater(account, c.id, id)).toBe(2);
    await execute(
      db.dataSource,
      `UPDATE chat.messages SET at = now() - interval '1 minute', reply_lease_until = now() - interval '1 second' WHERE conversation_id = $1`,
      [c.id],
    );
    const claimed = (await repo.claimStaleReplies(1_000, 30_000, 10)).filter((p) => p.conversation.id === c.id);
    expect(claimed.map((p) => ({ id: p.id, failures: p.failures }))).toEqual([{ id, failures: 2 }]);
    await repo.addReply(account, c.id, id, { author: 'assistant', text: 'could not answer', offersPerson: true });
    expect(await repo.retryReplyLater(account, c.id, id)).toBeUndefined();
  });

  it("a reply's commit does not wait for the WAL flush; any other message's does", async () => {
    const c = await conversation();
    const synchronousCommit = async (tx: ConversationTransaction) =>
      (await queryRows<{ value: string }>(tx.manager, `SELECT current_setting('synchronous_commit') AS value`))[0]?.value;
    const ask = () =>
      repo.transaction(async (tx) => {
        const added = await tx.addMessage(account, c.id, { author: 'customer', text: 'q', replyPending: true });
        return { added, setting: await synchronousCommit(tx) };
      });
    // More calls than PostgreSQL's five custom plans: the prepared statement's generic plan as well.
    for (let i = 0; i < 7; i += 1) expect((await ask()).setting).toBe('on');
    const question = await ask();
    // The reply's statement inside a transaction, to read the setting it leaves for the commit.
    const answered = await repo.transaction(async (tx) => {
      const inTransaction = new ConversationsRepository(tx.manager as unknown as DataSource);
      const added = await inTransaction.addReply(account, c.id, question.added.id, { author: 'assistant', text: 'a' });
      return { added, setting: await synchronousCommit(tx) };
    });
    expect(answered.added).toBeDefined();
    expect(answered.setting).toBe('off');
  });

  it("rotates a web conversation's token: the old one finds it no more (but as the previous one, for a session with a pass), streams see the change", async () => {
    const old = newVisitorToken();
    const c = await repo.create(account, visitorTokenHash(old), 'en', null);
    const before = (await repo.streamRead(account, c.id, 0))?.tokenIssuedAt;
    const next = newVisitorToken();
    const customer = { svcId: 21, identified: true, name: 'Ada', email: 'ada@example.com', phone: null };
    const rotated = await repo.transaction((tx) => tx.rotateToken(account, c.id, visitorTokenHash(next), customer));
    expect(rotated).toMatchObject({ id: c.id, customer_svc_id: 21, customer_identified: true, customer_name: 'Ada' });
    expect(await repo.byTokenHash(visitorTokenHash(old))).toBeUndefined();
    expect((await repo.byTokenHash(visitorTokenHash(next)))?.id).toBe(c.id);
    expect((await repo.streamRead(account, c.id, 0))?.tokenIssuedAt).not.toBe(before);
    const viaOld = await repo.transaction((tx) => tx.lockByToken(visitorTokenHash(old)));
    expect(viaOld).toMatchObject({ id: c.id, token_current: false });
    expect(await repo.transaction((tx) => tx.lockByToken(visitorTokenHash(next)))).toMatchObject({ id: c.id, token_current: true });
    // A customer it already has is kept; a third token leaves the first one behind for good.
    const third = newVisitorToken();
    const other = { ...customer, svcId: 22, name: 'Bob' };
    expect(await repo.transaction((tx) => tx.rotateToken(account, c.id, visitorTokenHash(third), other))).toMatchObject({
      customer_svc_id: 21,
      customer_name: 'Ada',
    });
    expect(await repo.transaction((tx) => tx.lockByToken(visitorTokenHash(old)))).toBeUndefined();
    // A WhatsApp conversation has no visitor token to rotate.
    const whatsapp = await queryRows<{ id: number }>(
      db.dataSource,
      `INSERT INTO chat.conversations (account_id, channel, token_hash) VALUES ($1, 'whatsapp', $2) RETURNING id::float8 AS id`,
      [account, visitorTokenHash(newVisitorToken())],
    );
    expect(
      await repo.transaction((tx) => tx.rotateToken(account, whatsapp[0]?.id as number, visitorTokenHash(newVisitorToken()))),
    ).toBeUndefined();
  });

  it('attaches a customer once: a second attach keeps the first', async () => {
    const c = await conversation();
    const first = await repo.attachCustomer(account, c.id, { svcId: 11, identified: false, name: '', email: null, phone: null });
    const second = await repo.attachCustomer(account, c.id, { svcId: 12, identified: false, name: '', email: null, phone: null });
    expect([first.customer_svc_id, second.customer_svc_id]).toEqual([11, 11]);
  });

  it("holds the newest version of each customer, read with a visitor's conversation, and nothing of an erased one", async () => {
    const svcId = 4_000 + Math.floor(Math.random() * 1_000);
    const version = (updatedAt: string, name: string, ref: string | null = null): EventContact => ({
      svc_id: svcId,
      ref,
      name,
      email: null,
      email_confirmed: false,
      phone: null,
      phone_confirmed: false,
      lang: null,
      created_at: '2026-11-28T08:00:00.000000+00:00',
      updated_at: updatedAt,
    });
    const token = newVisitorToken();
    const created = await repo.create(account, visitorTokenHash(token), 'en', null);
    await repo.attachCustomer(account, created.id, { svcId, identified: false, name: '', email: null, phone: null });
    expect((await repo.byTokenHash(visitorTokenHash(token)))?.customer).toBeNull();

    const attached = version('2026-11-28T08:00:00.000002+00:00', 'Sam', 'c-sam');
    await customers.remember(account, version('2026-11-28T08:00:00.000001+00:00', ''));
    await customers.remember(account, attached);
    // An older version arriving late (a redelivery, contacts-api's answer read before the attach) changes nothing.
    await customers.remember(account, version('2026-11-28T08:00:00.000001+00:00', ''));
    expect(await customers.known(account, svcId)).toEqual(attached);
    expect((await repo.byTokenHash(visitorTokenHash(token)))?.customer).toEqual(attached);
    expect(await customers.known(randomUUID(), svcId)).toBeNull();

    await customers.forget(account, svcId);
    await customers.remember(account, version('2026-11-28T09:00:00.000000+00:00', 'Sam again', 'c-sam'));
    expect(await customers.known(account, svcId)).toBeNull();
    expect((await repo.byTokenHash(visitorTokenHash(token)))?.customer).toBeNull();
  });

  it('the hand-over sweep moves due waits to ask_reach with a message, once, whichever replica runs it', async () => {
    const due = await conversation();
    const later = await conversation();
    await repo.transaction((tx) =>
      tx.setHandover(account, due.id, { status: 'needs_human', handover: 'waiting', reason: 'customer_asked', dueInMs: 0 }),
    );
    await repo.transaction((tx) =>
      tx.setHandover(account, later.id, { status: 'needs_human', handover: 'waiting', reason: 'customer_asked', dueInMs: 60_000 }),
    );
    const logger = createLogger('test', 'silent');
    const moved = await Promise.all([new HandoverSweeper(repo, 1_000, logger).run(), new HandoverSweeper(repo, 1_000, logger).run()]);
    expect(moved.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await repo.get(account, due.id)).toMatchObject({
      status: 'needs_human',
      handover: 'ask_reach',
      handover_reason: 'customer_asked',
    });
    expect((await repo.messages(account, due.id)).map((m) => m.author)).toEqual(['system']);
    expect((await repo.get(account, later.id))?.handover).toBe('waiting');
  });

  it('erasure blanks the customer in their conversations and messages, and only theirs', async () => {
    const theirs = await conversation({
      svcId: 99,
      identified: true,
      name: 'Grace Hopper',
      email: 'grace@example.com',
      phone: '+15555550100',
    });
    const others = await conversation({ svcId: 98, identified: true, name: 'Grace Hopper', email: 'g2@example.com', phone: null });
    for (const c of [theirs, others])
      await repo.transaction((tx) =>
        tx.addMessage(account, c.id, { author: 'customer', text: 'I am Grace Hopper (grace@example.com, +15555550100)' }),
      );
    await repo.transaction((tx) =>
      tx.setHandover(account, theirs.id, {
        status: 'handed_over',
        handover: 'created',
        reach: { method: 'email', email: 'grace@example.com', email_verified: true, whatsapp: '', whatsapp_verified: false, consent: true },
      }),
    );
    const erasure = new ErasureService(repo, customers);
    expect(await erasure.erase(account, 99)).toBe(1);
    expect(await erasure.erase(account, 99)).toBe(0);
    expect(await repo.get(account, theirs.id)).toMatchObject({
      customer_svc_id: null,
      customer_identified: false,
      customer_name: '',
      customer_email: null,
      customer_phone: null,
      reach: { email: '', whatsapp: '' },
    });
    expect((await repo.messages(account, theirs.id)).map((m) => m.text)).toEqual(['I am  (, )']);
    expect((await repo.messages(account, others.id)).map((m) => m.text)).toEqual(['I am Grace Hopper (grace@example.com, +15555550100)']);
    expect((await repo.get(account, others.id))?.customer_name).toBe('Grace Hopper');
  });
});
