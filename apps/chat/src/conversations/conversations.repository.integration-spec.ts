import { createDataSource, execute, migrate, queryRows } from '@svc/persistence';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ErasureService } from '../erasure/erasure.service';
import { HandoverSweeper } from '../handover/handover-sweeper';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from '../migrations';
import { createLogger } from '@svc/platform';
import { ConversationsRepository, ConversationTransaction } from './conversations.repository';
import { newVisitorToken, visitorTokenHash } from './visitor-token';

describe('ConversationsRepository (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let repo: ConversationsRepository;
  const account = randomUUID();

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createDataSource({ schema: CHAT_SCHEMA, url: db.url, migrations: CHAT_MIGRATIONS, poolSize: 12 }).initialize();
    await migrate(dataSource);
    repo = new ConversationsRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  const conversation = (customer = null as Parameters<ConversationsRepository['create']>[3]) =>
    repo.create(account, visitorTokenHash(newVisitorToken()), 'en', customer);

  it('finds a conversation by its token hash only, and a token is stored only as its hash', async () => {
    const token = newVisitorToken();
    const created = await repo.create(account, visitorTokenHash(token), 'de', null);
    expect(await repo.byTokenHash(visitorTokenHash(token))).toEqual(created);
    expect(await repo.byTokenHash(visitorTokenHash(newVisitorToken()))).toBeUndefined();
    const stored = await queryRows<{ token_hash: Buffer }>(dataSource, 'SELECT token_hash FROM chat.conversations WHERE id = $1', [
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

  it("counts the customer's messages of the last minute from their own index, however long the conversation", async () => {
    const c = await conversation();
    // A long conversation: 2,000 messages of the day before, then 3 from the customer and 2 answers now.
    await execute(
      dataSource,
      `WITH last AS (UPDATE chat.conversations SET last_message_id = 2000 WHERE id = $2)
       INSERT INTO chat.messages (conversation_id, id, account_id, author, text, at)
       SELECT $2, n, $1, CASE WHEN n % 2 = 0 THEN 'customer' ELSE 'assistant' END, 'earlier', now() - interval '1 day'
         FROM generate_series(1, 2000) AS n`,
      [account, c.id],
    );
    for (const author of ['customer', 'assistant', 'customer', 'assistant', 'customer'] as const)
      await repo.transaction((tx) => tx.addMessage(account, c.id, { author, text: 'now' }));
    const scans = async (): Promise<number> =>
      Number(
        (
          await queryRows<{ idx_scan: string }>(
            dataSource,
            `SELECT idx_scan FROM pg_stat_user_indexes WHERE schemaname = 'chat' AND indexrelname = 'messages_customer_at_idx'`,
          )
        )[0]?.idx_scan ?? 0,
      );
    const before = await scans();
    // More calls than PostgreSQL's five custom plans: the prepared statement's generic plan as well.
    for (let i = 0; i < 8; i += 1) {
      const recent = await repo.recentCustomerMessages(account, c.id, 60_000);
      expect(recent.count).toBe(3);
      expect(recent.retryAfterMs).toBeGreaterThan(50_000);
      expect(recent.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    expect(await repo.recentCustomerMessages(randomUUID(), c.id, 60_000)).toEqual({ count: 0, retryAfterMs: 0 });
    // Index statistics reach the view when the backends report them (within about a second).
    for (let wait = 0; (await scans()) - before < 9 && wait < 40; wait += 1) await sleep(100);
    expect((await scans()) - before).toBeGreaterThanOrEqual(9);
  });

  it("a stream reads the messages after an id and the conversation's state in one go", async () => {
    const c = await conversation();
    expect(await repo.streamRead(account, c.id, 0)).toEqual({ messages: [], state: { status: 'open', handover: 'none' } });
    for (const text of ['one', 'two', 'three']) await repo.transaction((tx) => tx.addMessage(account, c.id, { author: 'customer', text }));
    await repo.transaction((tx) => tx.setHandover(account, c.id, { status: 'needs_human', handover: 'waiting' }));
    expect(await repo.streamRead(account, c.id, 1)).toEqual({
      messages: await repo.messages(account, c.id, 1),
      state: { status: 'needs_human', handover: 'waiting' },
    });
    expect((await repo.streamRead(account, c.id, 0, 2))?.messages.map((m) => m.text)).toEqual(['one', 'two']);
    expect(await repo.streamRead(account, c.id, 3)).toEqual({ messages: [], state: { status: 'needs_human', handover: 'waiting' } });
    expect(await repo.streamRead(randomUUID(), c.id, 0)).toBeUndefined();
  });

  it('a pending reply is claimed by one taker at a time and finished once', async () => {
    const c = await conversation();
    const message = await repo.transaction((tx) =>
      tx.addMessage(account, c.id, { author: 'customer', text: 'hello?', replyPending: true }),
    );
    const claims = await Promise.all([1, 2, 3].map(() => repo.claimReply(account, c.id, message.id, 30_000)));
    expect(claims.filter(Boolean)).toEqual([{ id: message.id, text: 'hello?', conversation: await repo.get(account, c.id) }]);
    // A stale sweep leaves a leased message alone.
    await execute(dataSource, `UPDATE chat.messages SET at = now() - interval '1 minute' WHERE conversation_id = $1`, [c.id]);
    expect((await repo.claimStaleReplies(1_000, 30_000, 10)).filter((p) => p.conversation.id === c.id)).toEqual([]);
    // Once the lease has run out, the sweep takes it over.
    await execute(dataSource, `UPDATE chat.messages SET reply_lease_until = now() - interval '1 second' WHERE conversation_id = $1`, [
      c.id,
    ]);
    expect((await repo.claimStaleReplies(1_000, 30_000, 10)).filter((p) => p.conversation.id === c.id)).toHaveLength(1);
    // The reply's transaction commits without waiting for the WAL flush (a crash that loses it leaves the message pending).
    const synchronousCommit = async (tx: ConversationTransaction) =>
      (await queryRows<{ value: string }>(tx.manager, `SELECT current_setting('synchronous_commit') AS value`))[0]?.value;
    expect(await repo.transaction(async (tx) => [await tx.finishReply(account, c.id, message.id), await synchronousCommit(tx)])).toEqual([
      true,
      'off',
    ]);
    expect(await repo.transaction((tx) => tx.finishReply(account, c.id, message.id))).toBe(false);
    await execute(dataSource, `UPDATE chat.messages SET reply_lease_until = NULL WHERE conversation_id = $1`, [c.id]);
    expect(await repo.claimReply(account, c.id, message.id, 30_000)).toBeUndefined();
  });

  it('attaches a customer once: a second attach keeps the first', async () => {
    const c = await conversation();
    const first = await repo.attachCustomer(account, c.id, { svcId: 11, identified: false, name: '', email: null, phone: null });
    const second = await repo.attachCustomer(account, c.id, { svcId: 12, identified: false, name: '', email: null, phone: null });
    expect([first.customer_svc_id, second.customer_svc_id]).toEqual([11, 11]);
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
    const erasure = new ErasureService(repo);
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
