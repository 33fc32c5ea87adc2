import { execute, queryRows } from '@svc/persistence';
import { suiteSchemaDatabase } from '@svc/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { BookingsRepository } from '../bookings/bookings.repository';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from '../migrations';
import { InboxRepository } from './inbox.repository';

describe('InboxRepository and BookingsRepository (real PostgreSQL)', () => {
  const db = suiteSchemaDatabase({ schema: CHAT_SCHEMA, migrations: CHAT_MIGRATIONS, poolSize: 4 });
  let inbox: InboxRepository;
  let conversations: ConversationsRepository;
  let bookings: BookingsRepository;
  const account = randomUUID();
  const other = randomUUID();

  beforeAll(() => {
    inbox = new InboxRepository(db.dataSource);
    conversations = new ConversationsRepository(db.dataSource);
    bookings = new BookingsRepository(db.dataSource);
  });

  const conversation = async (accountId = account) =>
    (await conversations.create(accountId, randomBytes(32), 'en', { svcId: 7, identified: false, name: '', email: null, phone: null })).id;
  const say = (id: number, author: 'customer' | 'assistant' | 'team' | 'system', text: string, accountId = account) =>
    conversations.transaction((tx) => tx.addMessage(accountId, id, { author, text }));
  const setActivity = (id: number, at: string) =>
    execute(db.dataSource, `UPDATE chat.conversations SET updated_at = $2 WHERE id = $1`, [id, at]);
  const ids = (rows: Array<{ id: number }>) => rows.map((r) => r.id);

  it('lists conversations with a message, newest activity first; the cursor pages through ties without skipping or repeating', async () => {
    const quiet = await conversation();
    const made: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await conversation();
      await say(id, 'customer', `question ${i}`);
      made.push(id);
    }
    await say(await conversation(other), 'customer', 'not yours', other);
    // Three share one instant (a tie broken by id), two are older.
    await setActivity(made[0] as number, '2026-01-01T10:00:00.000001Z');
    await setActivity(made[1] as number, '2026-01-01T10:00:00.000002Z');
    for (const id of made.slice(2)) await setActivity(id, '2026-01-01T11:00:00.123456Z');

    const all = await inbox.list(account, { limit: 50 });
    const expected = [made[4], made[3], made[2], made[1], made[0]];
    expect(ids(all)).toEqual(expected);
    expect(ids(all)).not.toContain(quiet);

    // Read with `limit + 1`: the row past the page tells that more follow.
    const seen: number[] = [];
    let after: string | undefined;
    for (;;) {
      const rows = await inbox.list(account, { limit: 2, after });
      const page = rows.slice(0, 2);
      seen.push(...ids(page));
      if (rows.length <= 2) break;
      after = page.at(-1)?.cursor;
    }
    expect(seen).toEqual(expected);
    expect(await inbox.list(other, { limit: 50 })).toHaveLength(1);
    expect(await inbox.get(other, made[0] as number)).toBeUndefined();
  });

  it('needs_human: a person was asked for and the team has not answered the latest customer message; the last message skips notices', async () => {
    const id = await conversation();
    await say(id, 'customer', 'a person please');
    await conversations.transaction((tx) =>
      tx.setHandover(account, id, { status: 'needs_human', handover: 'waiting', reason: 'customer_asked', dueInMs: 60_000 }),
    );
    await say(id, 'system', 'A person will answer.');
    let row = await inbox.get(account, id);
    expect(row).toMatchObject({ needs_human: true, last_author: 'customer', last_text: 'a person please' });
    expect((await inbox.list(account, { needsHuman: true, limit: 50 })).map((r) => r.id)).toEqual([id]);

    await say(id, 'team', 'Hello');
    await conversations.transaction((tx) => tx.stopHandoverWait(account, id));
    row = await inbox.get(account, id);
    expect(row).toMatchObject({ needs_human: false, last_author: 'team', status: 'needs_human' });
    expect(await inbox.list(account, { needsHuman: true, limit: 50 })).toEqual([]);
    const [due] = await queryRows<{ handover_due_at: string | null }>(
      db.dataSource,
      `SELECT handover_due_at FROM chat.conversations WHERE id = $1`,
      [id],
    );
    expect(due?.handover_due_at).toBeNull();

    await say(id, 'customer', 'and another thing');
    expect((await inbox.get(account, id))?.needs_human).toBe(true);
    expect((await inbox.messages(account, id)).map((m) => m.author)).toEqual(['customer', 'system', 'team', 'customer']);
    expect(await inbox.messages(other, id)).toEqual([]);
  });

  it("changes: the account's conversations changed since a moment, oldest change first, with their cursor", async () => {
    const before = BigInt(Date.now() - 1_000) * 1000n;
    const id = await conversation();
    await say(id, 'customer', 'hello');
    await say(await conversation(other), 'customer', 'hello', other);
    const changes = await inbox.changes(account, before, 100);
    expect(changes.at(-1)).toMatchObject({ id, last_message_id: 1 });
    expect(changes.at(-1)?.cursor).toMatch(new RegExp(`^\\d+\\.${id}$`));
    expect((await inbox.changes(account, BigInt(Date.now() + 60_000) * 1000n, 100)).map((c) => c.id)).not.toContain(id);
  });

  it('bookings: created only in the future; confirmed_at is set when confirmed; another account reads none', async () => {
    const id = await conversation();
    const make = (startsAt: string) =>
      conversations.transaction((_tx, manager) =>
        bookings.create(manager, account, {
          conversationId: id,
          listingRef: 'flat',
          listingHeading: 'Flat',
          startsAt,
          note: '',
          createdBy: 'customer',
        }),
      );
    expect(await make('2020-01-01T10:00:00Z')).toBeUndefined();
    const made = await make('2099-01-01T10:00:00.123456+02:00');
    expect(made).toMatchObject({
      conversation_id: id,
      customer_svc_id: 7,
      listing_ref: 'flat',
      starts_at: '2099-01-01T08:00:00.123456+00:00',
      status: 'requested',
      created_by: 'customer',
    });
    const confirmed = await conversations.transaction((_tx, manager) =>
      bookings.setStatus(manager, account, made?.id as number, 'confirmed'),
    );
    expect(confirmed.status).toBe('confirmed');
    const [row] = await queryRows<{ confirmed_at: string | null }>(db.dataSource, `SELECT confirmed_at FROM chat.bookings WHERE id = $1`, [
      made?.id ?? null,
    ]);
    expect(row?.confirmed_at).not.toBeNull();
    expect(await bookings.get(other, made?.id as number)).toBeUndefined();
    expect((await bookings.list(account, { after: 0, limit: 10 })).map((b) => b.id)).toEqual([made?.id]);
    expect(await bookings.list(account, { status: 'requested', after: 0, limit: 10 })).toEqual([]);
    expect(await bookings.list(other, { after: 0, limit: 10 })).toEqual([]);
  });
});
