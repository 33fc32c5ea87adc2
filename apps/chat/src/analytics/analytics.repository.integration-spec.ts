import { AnalyticsDay } from '@svc/contracts';
import { execute, queryRows } from '@svc/persistence';
import { suiteSchemaDatabase } from '@svc/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from '../migrations';
import { AnalyticsRepository, ContactActivity } from './analytics.repository';
import { AnalyticsService, emptyDay } from './analytics.service';

describe('AnalyticsRepository and AnalyticsService (real PostgreSQL)', () => {
  const db = suiteSchemaDatabase({ schema: CHAT_SCHEMA, migrations: CHAT_MIGRATIONS, poolSize: 4 });
  let repo: AnalyticsRepository;
  const account = randomUUID();
  const other = randomUUID();

  beforeAll(() => {
    repo = new AnalyticsRepository(db.dataSource);
  });

  const conversation = async (accountId = account): Promise<number> => {
    const [row] = await queryRows<{ id: number }>(
      db.dataSource,
      `INSERT INTO chat.conversations (account_id, token_hash) VALUES ($1, $2) RETURNING id::float8 AS id`,
      [accountId, randomBytes(32)],
    );
    return (row as { id: number }).id;
  };
  const message = async (
    conversationId: number,
    id: number,
    author: string,
    text: string,
    at: string,
    citation: object | null = null,
    accountId = account,
  ) =>
    execute(
      db.dataSource,
      `INSERT INTO chat.messages (conversation_id, id, account_id, author, text, at, citation, offers_person) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [conversationId, id, accountId, author, text, at, citation ? JSON.stringify(citation) : null, author === 'assistant' && !citation],
    );
  const handover = (conversationId: number, reason: string, at: string) =>
    execute(db.dataSource, `INSERT INTO chat.handovers (account_id, conversation_id, reason, at) VALUES ($1, $2, $3, $4)`, [
      account,
      conversationId,
      reason,
      at,
    ]);
  /** contacts-api's activity as its consumer records it (`eventId`: a redelivery repeats it). */
  const activity = (kind: ContactActivity['kind'], detail: string, at: string, eventId = randomUUID(), accountId = account) =>
    repo.recordActivity({ eventId, accountId, kind, detail, at });
  const flat = { external_ref: 'flat', heading: 'Flat in Berlin', url: null };
  /** A day's figures: nothing counted but `figures`. */
  const day = (date: string, figures: Partial<AnalyticsDay> = {}): AnalyticsDay => ({ ...emptyDay(date), ...figures });

  it('counts each figure per UTC day from the chat schema, for this account only, within the range', async () => {
    // Day 1: one conversation the assistant closed; one unanswered question handed over, answered by the team after 120 s.
    const c1 = await conversation();
    await message(c1, 1, 'customer', 'Where is the flat?', '2026-03-01T10:00:00Z');
    await message(c1, 2, 'assistant', 'In Berlin.', '2026-03-01T10:00:01Z', flat);
    const c2 = await conversation();
    await message(c2, 1, 'customer', 'Do you sell boats?', '2026-03-01T11:00:00Z');
    await message(c2, 2, 'assistant', 'Sorry.', '2026-03-01T11:00:01Z');
    await message(c2, 3, 'system', 'A person will answer.', '2026-03-01T11:01:00Z');
    await handover(c2, 'assistant_unsure', '2026-03-01T11:01:00Z');
    await message(c2, 4, 'team', 'We do not.', '2026-03-01T11:03:00Z');
    // Day 2: the same question in other words; two requests for a person answered after 30 s and 90 s.
    const c3 = await conversation();
    await message(c3, 1, 'customer', 'do you  SELL boats? ', '2026-03-02T09:00:00Z');
    await message(c3, 2, 'assistant', 'Sorry.', '2026-03-02T09:00:01Z');
    await handover(c3, 'customer_asked', '2026-03-02T09:01:00Z');
    await message(c3, 3, 'team', 'No boats.', '2026-03-02T09:01:30Z');
    const c4 = await conversation();
    await message(c4, 1, 'customer', 'Hi', '2026-03-02T10:00:00Z');
    await handover(c4, 'customer_asked', '2026-03-02T10:00:00Z');
    await handover(c4, 'nobody_answered', '2026-03-02T10:05:00Z');
    await message(c4, 2, 'team', 'Hello!', '2026-03-02T10:01:30Z');
    // Outside the range, and another account's: not counted.
    const c5 = await conversation();
    await message(c5, 1, 'customer', 'Do you sell boats?', '2026-03-04T09:00:00Z');
    await message(c5, 2, 'assistant', 'Sorry.', '2026-03-04T09:00:01Z');
    const c6 = await conversation(other);
    await message(c6, 1, 'customer', 'Where is the flat?', '2026-03-01T10:00:00Z', null, other);
    await message(c6, 2, 'assistant', 'In Berlin.', '2026-03-01T10:00:01Z', flat, other);
    // A booking made on day 1, confirmed on day 2.
    await execute(
      db.dataSource,
      `INSERT INTO chat.bookings (account_id, conversation_id, starts_at, created_by, status, created_at, confirmed_at) VALUES ($1, $2, '2026-04-01T10:00:00Z', 'customer', 'confirmed', '2026-03-01T12:00:00Z', '2026-03-02T08:00:00Z')`,
      [account, c1],
    );
    // contacts-api's activity, one event delivered twice.
    const granted = randomUUID();
    await activity('consent.granted', 'reply_email', '2026-03-01T11:02:00Z', granted);
    await activity('consent.granted', 'reply_email', '2026-03-01T11:02:00Z', granted);
    await activity('consent.withdrawn', 'reply_email', '2026-03-02T12:00:00Z');
    await activity('contact.confirmed', 'email', '2026-03-02T12:00:00Z');
    await activity('contact.confirmed', 'phone', '2026-03-02T12:00:00Z', randomUUID(), other);

    const figures = await new AnalyticsService(repo).figures(account, { from: '2026-03-01', to: '2026-03-03' });
    expect(figures.days).toEqual([
      day('2026-03-01', {
        conversations: { web: 2, whatsapp: 0 },
        messages_received: 2,
        messages_sent: { assistant: 2, team: 1 },
        closed_by_assistant: 1,
        handovers: { customer_asked: 0, assistant_unsure: 1, nobody_answered: 0 },
        median_first_team_reply_seconds: 120,
        consents: { granted: { reply_email: 1 }, withdrawn: {} },
        bookings: { requested: 1, confirmed: 0 },
      }),
      day('2026-03-02', {
        conversations: { web: 2, whatsapp: 0 },
        messages_received: 2,
        messages_sent: { assistant: 1, team: 2 },
        handovers: { customer_asked: 2, assistant_unsure: 0, nobody_answered: 1 },
        median_first_team_reply_seconds: 60,
        confirmations: { email: 1, phone: 0 },
        consents: { granted: {}, withdrawn: { reply_email: 1 } },
        bookings: { requested: 0, confirmed: 1 },
      }),
      day('2026-03-03'),
    ]);
    expect(figures.top_cited_pieces).toEqual([{ external_ref: 'flat', heading: 'Flat in Berlin', count: 1 }]);
    expect(figures.top_unanswered_questions).toEqual([{ question: 'do you  SELL boats? ', count: 2 }]);

    const wider = await new AnalyticsService(repo).figures(account, { from: '2026-03-01', to: '2026-03-04' });
    expect(wider.top_unanswered_questions).toEqual([{ question: 'Do you sell boats?', count: 3 }]);
    expect((await new AnalyticsService(repo).figures(other, { from: '2026-03-01', to: '2026-03-03' })).days[1]?.confirmations).toEqual({
      email: 0,
      phone: 1,
    });
  });

  it('keeps the 10 most cited pieces, most cited first', async () => {
    const c = await conversation();
    let id = 0;
    for (let piece = 0; piece < 12; piece++) {
      for (let times = 0; times <= piece; times++) {
        await message(c, ++id, 'assistant', 'x', '2026-05-01T10:00:00Z', {
          external_ref: `p${String(piece).padStart(2, '0')}`,
          heading: `Piece ${piece}`,
          url: null,
        });
      }
    }
    const top = await repo.topCitedPieces(account, '2026-05-01', '2026-05-01');
    expect(top).toHaveLength(10);
    expect(top[0]).toEqual({ external_ref: 'p11', heading: 'Piece 11', count: 12 });
    expect(top.at(-1)).toEqual({ external_ref: 'p02', heading: 'Piece 2', count: 3 });
  });
});
