import { SearchShard, searchShardOf, WHOLE_INDEX } from '@svc/contracts';
import { createDataSource, execute, migrate } from '@svc/persistence';
import { ApiError } from '@svc/platform';
import { createTestDatabase, TestDatabase, waitFor } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { KNOWLEDGE_MIGRATIONS, KNOWLEDGE_SCHEMA } from '../migrations';
import { PiecesRepository } from '../pieces/pieces.repository';
import { PiecesService } from '../pieces/pieces.service';
import { SearchIndex } from './search-index';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';
import { TaughtRepository } from '../taught/taught.repository';
import { TaughtService } from '../taught/taught.service';

/** One knowledge-api replica: its own pool, its own in-memory index with its own LISTEN connection. */
interface Replica {
  dataSource: DataSource;
  index: SearchIndex;
  pieces: PiecesService;
  search: SearchService;
  taught: TaughtService;
}

const silent = pino({ level: 'silent' });

describe('the in-memory search on two replicas (real PostgreSQL)', () => {
  let db: TestDatabase;
  let a: Replica;
  let b: Replica;
  let c: Replica | undefined;
  const shards: Replica[] = [];
  const account = randomUUID();
  const other = randomUUID();

  async function replica(shard: SearchShard = WHOLE_INDEX): Promise<Replica> {
    const dataSource = await createDataSource({
      schema: KNOWLEDGE_SCHEMA,
      url: db.url,
      migrations: KNOWLEDGE_MIGRATIONS,
      poolSize: 4,
    }).initialize();
    await migrate(dataSource);
    const index = new SearchIndex(new SearchRepository(dataSource), db.url, silent, shard);
    await index.onApplicationBootstrap();
    return {
      dataSource,
      index,
      pieces: new PiecesService(new PiecesRepository(dataSource), index),
      search: new SearchService(index),
      taught: new TaughtService(new TaughtRepository(dataSource), index),
    };
  }

  const refs = (on: Replica, question: string, lang = 'en', accountId = account) =>
    on.search.answer(accountId, { question, lang }).results.map((r) => r.external_ref);
  /** Resolves once `on` answers `question` with `expected` first (or nothing, for null). */
  const until = (on: Replica, question: string, expected: string | null, accountId = account) =>
    waitFor(
      `${question} → ${expected}`,
      async () => ((refs(on, question, 'en', accountId)[0] ?? null) === expected ? true : undefined),
      10_000,
    );

  /** A piece of the account written by a statement on the table, as any writer may (not through a replica). */
  const insertPiece = (ref: string, heading: string, text: string, lang: string) =>
    execute(a.dataSource, 'INSERT INTO knowledge.pieces (account_id, external_ref, heading, text, lang) VALUES ($1, $2, $3, $4, $5)', [
      account,
      ref,
      heading,
      text,
      lang,
    ]);

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await replica();
    await a.pieces.bulkUpsert(account, [
      {
        external_ref: 'shipping',
        heading: 'Shipping times and costs',
        text: 'We ship every order within 2 working days; shipping is free above 50 euros.',
      },
      { external_ref: 'returns', heading: 'Returning shoes', text: 'You can return your shoes within 30 days if they are unworn.' },
    ]);
    b = await replica();
  });

  afterAll(async () => {
    for (const r of [a, b, c, ...shards]) {
      await r?.index.beforeApplicationShutdown();
      await r?.dataSource.destroy();
    }
    await db?.drop();
  });

  it('builds its index from the schema at start: a replica started later finds what was written before', () => {
    expect(refs(b, 'how long does shipping take?')).toEqual(['shipping']);
    expect(refs(b, 'can I return my shoes?')).toEqual(['returns']);
  });

  it('a write answered by replica A is searchable on A at once, and on replica B soon after', async () => {
    await a.pieces.upsert(account, 'gift-cards', {
      heading: 'Gift cards',
      text: 'Gift cards are valid for three years and cannot be exchanged for cash.',
    });
    expect(refs(a, 'are gift cards valid for long?')).toEqual(['gift-cards']);
    await until(b, 'are gift cards valid for long?', 'gift-cards');
  });

  it('an update and a delete on B reach A', async () => {
    await b.pieces.upsert(account, 'gift-cards', {
      heading: 'Gift vouchers',
      text: 'Vouchers never expire and can be topped up in any store.',
    });
    expect(refs(b, 'do vouchers expire?')).toEqual(['gift-cards']);
    await until(a, 'do vouchers expire?', 'gift-cards');
    expect(refs(a, 'gift cards exchanged for cash')).toEqual([]);
    await b.pieces.delete(account, 'gift-cards');
    expect(refs(b, 'do vouchers expire?')).toEqual([]);
    await until(a, 'do vouchers expire?', null);
  });

  it('follows a statement any writer commits on the table (50 pieces at once), and deletes by it', async () => {
    await execute(
      a.dataSource,
      `INSERT INTO knowledge.pieces (account_id, external_ref, heading, text, lang)
       SELECT $1, 'kayak-' || i, 'Kayak model ' || i, 'The kayak model number ' || i || ' seats two paddlers.', 'english' FROM generate_series(1, 50) AS i`,
      [account],
    );
    await until(a, 'kayak model 37', 'kayak-37');
    await until(b, 'kayak model 37', 'kayak-37');
    await execute(a.dataSource, "DELETE FROM knowledge.pieces WHERE account_id = $1 AND external_ref LIKE 'kayak-%'", [account]);
    await until(a, 'kayak model 37', null);
    await until(b, 'kayak model 37', null);
  });

  it('tells the language of a piece stored as simple (written before its language could be told), at start and when it changes', async () => {
    // What a write stored before a short piece's language was told by its frequent words: not stemmed, "bikes" missed "bike".
    await insertPiece('warranty', 'Bike warranty', 'Every bike has a five-year warranty on its frame.', 'simple');
    await until(a, 'how long is the warranty on bikes?', 'warranty');
    const later = await replica();
    try {
      expect(refs(later, 'how long is the warranty on bikes?')).toEqual(['warranty']);
    } finally {
      await later.index.beforeApplicationShutdown();
      await later.dataSource.destroy();
    }
    await execute(a.dataSource, "DELETE FROM knowledge.pieces WHERE account_id = $1 AND external_ref = 'warranty'", [account]);
    await until(a, 'how long is the warranty on bikes?', null);
  });

  it('rebuilds after losing its LISTEN connection: a change committed meanwhile is not missed', async () => {
    await execute(a.dataSource, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'knowledge-search-index'");
    await waitFor('both replicas to notice', async () => (!a.index.listening && !b.index.listening ? true : undefined), 5_000);
    await insertPiece('repairs', 'Repairs', 'Our workshop repairs zippers and buckles within a week.', 'english');
    await until(a, 'do you repair zippers?', 'repairs');
    await until(b, 'do you repair zippers?', 'repairs');
    expect(a.index.listening && b.index.listening).toBe(true);
  });

  it("never finds another account's pieces, and answers 30 searches at once alike", async () => {
    expect(refs(a, 'how long does shipping take?', 'en', other)).toEqual([]);
    await a.pieces.upsert(other, 'shipping', { heading: 'Our shipping', text: 'We only ship to Switzerland, within 10 days.' });
    await until(b, 'do you ship to Switzerland?', 'shipping', other);
    expect(refs(b, 'shipping', 'en', other)).toEqual(['shipping']);
    expect(b.search.answer(other, { question: 'do you ship to Switzerland?', lang: 'en' }).results[0]?.heading).toBe('Our shipping');
    const answers = await Promise.all(Array.from({ length: 30 }, async () => refs(b, 'can I return my shoes?')));
    expect(new Set(answers.map((r) => r.join()))).toEqual(new Set(['returns']));
  });

  it('what the team taught is answered on the replica that wrote it at once, on the other soon after, and by a replica started later', async () => {
    const team = { account: { id: account, name: '', plan: 'scale' as const }, keyId: 'console:7', requestId: 'teach-test' };
    expect(refs(a, 'when will my parcel arrive?')).toEqual([]);
    const parcel = await a.taught.teach(team, { question: 'When will my parcel arrive?', lang: 'en', external_ref: 'shipping' });
    expect(parcel).toMatchObject({ question: 'When will my parcel arrive?', lang: 'en', external_ref: 'shipping', created_by: 'team:7' });
    expect(refs(a, 'when will my parcel arrive?')).toEqual(['shipping']);
    await until(b, 'when will my parcel arrive?', 'shipping');
    expect(refs(b, 'when does the parcel arrive')).toEqual(['shipping']);

    // "No piece answers this": a question the search would have answered answers nothing.
    expect(refs(b, 'can I return my shoes?')).toEqual(['returns']);
    const none = await b.taught.teach(team, { question: 'Can I return my shoes?', external_ref: null });
    expect(none.lang).toBe('en');
    expect(refs(b, 'can I return my shoes?')).toEqual([]);
    await until(a, 'can I return my shoes?', null);

    // Taught for a piece of another account: nothing there; the other account's search is unchanged.
    expect(refs(a, 'when will my parcel arrive?', 'en', other)).toEqual([]);

    c = await replica();
    expect(refs(c, 'when will my parcel arrive?')).toEqual(['shipping']);
    expect(refs(c, 'can I return my shoes?')).toEqual([]);

    await a.taught.remove(account, none.id);
    await a.taught.remove(account, parcel.id);
    for (const on of [a, b, c]) {
      await until(on, 'can I return my shoes?', 'returns');
      await until(on, 'when will my parcel arrive?', null);
    }
  });

  describe('spread over two search shards (SEARCH_SHARD 0/2 and 1/2)', () => {
    /** A new account on search shard `shard` of 2. */
    const accountOn = (shard: number) => {
      for (;;) {
        const id = randomUUID();
        if (searchShardOf(id, 2) === shard) return id;
      }
    };
    const first = accountOn(0);
    const second = accountOn(1);
    const question = 'is there a warranty on the bike frame?';

    it("each shard's replica holds, loads and follows only its own accounts, and refuses a search for another's", async () => {
      const [zero, one] = [await replica({ index: 0, count: 2 }), await replica({ index: 1, count: 2 })];
      shards.push(zero, one);
      const warranty = { heading: 'Bike warranty', text: 'Every bike has a five-year warranty on its frame.' };
      // Written through the replica of the other shard: the owner's replica follows it through NOTIFY.
      await one.pieces.upsert(first, 'warranty', warranty);
      await zero.pieces.upsert(second, 'warranty', warranty);
      await until(zero, question, 'warranty', first);
      await until(one, question, 'warranty', second);
      expect(zero.index.search(second, question, 'english', 3)).toEqual([]);
      expect(one.index.search(first, question, 'english', 3)).toEqual([]);
      expect(() => zero.search.answer(second, { question, lang: 'en' })).toThrow(ApiError);
      expect(() => one.search.answer(first, { question, lang: 'en' })).toThrow(/shard 1\/2/);

      // A replica of shard 0 started now loads the first account's piece, and not the second's.
      const later = await replica({ index: 0, count: 2 });
      shards.push(later);
      expect(refs(later, question, 'en', first)).toEqual(['warranty']);
      expect(later.index.search(second, question, 'english', 3)).toEqual([]);
      // A replica of every account (0/1) holds both.
      expect(refs(b, question, 'en', first)).toEqual(['warranty']);
      expect(refs(b, question, 'en', second)).toEqual(['warranty']);
    });
  });
});
