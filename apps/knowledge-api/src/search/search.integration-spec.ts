import { createDataSource, migrate, queryRows } from '@svc/persistence';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { KNOWLEDGE_MIGRATIONS, KNOWLEDGE_SCHEMA } from '../migrations';
import { PiecesRepository } from '../pieces/pieces.repository';
import { PiecesService } from '../pieces/pieces.service';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';

/** A small shop's knowledge in three languages, with near neighbours so that ranking matters. */
const PIECES = [
  {
    external_ref: 'en-shipping',
    heading: 'Shipping times and costs',
    text: 'We ship every order within 2 working days. Delivery to EU countries takes 3 to 5 days, and shipping is free above 50 euros.',
  },
  {
    external_ref: 'en-returns',
    heading: 'Returning shoes',
    text: 'You can return your shoes within 30 days if they are unworn. Refunds are paid to the card you used within a week.',
  },
  {
    external_ref: 'en-warranty',
    heading: 'Warranty on boots',
    text: 'Our hiking boots carry a two-year warranty against manufacturing defects. Wear and tear is not covered by it.',
  },
  {
    external_ref: 'en-gift-cards',
    heading: 'Gift cards',
    text: 'Gift cards are valid for three years and can be used online and in our stores. They cannot be exchanged for cash.',
  },
  {
    external_ref: 'de-ruecksendung',
    heading: 'Rücksendung von Schuhen',
    text: 'Sie können Ihre Schuhe innerhalb von 30 Tagen kostenlos zurücksenden. Die Erstattung erfolgt auf die Karte, mit der Sie bezahlt haben.',
  },
  {
    external_ref: 'de-versand',
    heading: 'Versandkosten',
    text: 'Der Versand innerhalb Deutschlands ist ab 50 Euro kostenlos. Darunter berechnen wir eine Pauschale von 4,90 Euro für jede Bestellung.',
  },
  {
    external_ref: 'fr-livraison',
    heading: 'Délai de livraison',
    text: 'Les commandes sont livrées en trois jours ouvrés. La livraison est gratuite pour les commandes de plus de 50 euros.',
  },
  {
    external_ref: 'fr-garantie',
    heading: 'Garantie des chaussures',
    text: 'Toutes nos chaussures sont garanties deux ans contre les défauts de fabrication. Vous pouvez nous envoyer une photo du défaut.',
  },
];

describe('knowledge search (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let pieces: PiecesService;
  let search: SearchService;
  const account = randomUUID();
  const other = randomUUID();

  const refs = async (question: string, lang: string, accountId = account) =>
    (await search.answer(accountId, { question, lang })).results.map((r) => r.external_ref);
  const vocabulary = async (accountId: string) =>
    queryRows<{ word: string; pieces: number }>(
      dataSource,
      'SELECT word, pieces FROM knowledge.vocabulary WHERE account_id = $1 ORDER BY word',
      [accountId],
    );
  const recomputedVocabulary = async (accountId: string) =>
    queryRows<{ word: string; pieces: number }>(
      dataSource,
      `SELECT w AS word, count(*)::int AS pieces FROM knowledge.pieces p, unnest(knowledge.words(p.heading, p.text)) w
        WHERE p.account_id = $1 GROUP BY w ORDER BY w`,
      [accountId],
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createDataSource({
      schema: KNOWLEDGE_SCHEMA,
      url: db.url,
      migrations: KNOWLEDGE_MIGRATIONS,
      poolSize: 4,
    }).initialize();
    await migrate(dataSource);
    pieces = new PiecesService(new PiecesRepository(dataSource));
    search = new SearchService(new SearchRepository(dataSource));
    await pieces.bulkUpsert(
      account,
      PIECES.map((p) => ({ ...p })),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('indexes each piece in the language of its words', async () => {
    const rows = await queryRows<{ external_ref: string; lang: string }>(
      dataSource,
      'SELECT external_ref, lang FROM knowledge.pieces WHERE account_id = $1 ORDER BY 1',
      [account],
    );
    expect(Object.fromEntries(rows.map((r) => [r.external_ref, r.lang]))).toEqual({
      'de-ruecksendung': 'german',
      'de-versand': 'german',
      'en-gift-cards': 'english',
      'en-returns': 'english',
      'en-shipping': 'english',
      'en-warranty': 'english',
      'fr-garantie': 'french',
      'fr-livraison': 'french',
    });
  });

  describe('finds the right piece first', () => {
    it.each([
      ['an English question in other inflections', 'Can I return shoes I bought?', 'en', 'en-returns'],
      ['an English question in other inflections (shipped, ordering)', 'When is my order shipped?', 'en', 'en-shipping'],
      ['a misspelled English question', 'how long does shiping take', 'en', 'en-shipping'],
      ['a misspelled English question (two words)', 'waranty on hiking bots', 'en', 'en-warranty'],
      ['a German question in another inflection', 'Wie funktionieren Rücksendungen?', 'de', 'de-ruecksendung'],
      ['a German question without umlauts', 'Rucksendung der Schuhe', 'de', 'de-ruecksendung'],
      ['a misspelled German question', 'Was kostet der Versnd?', 'de', 'de-versand'],
      ['a French question in another inflection, without accents', 'delais de livraisons', 'fr', 'fr-livraison'],
      ['a French question with accents the piece lacks', 'Les chaussures sont-elles garanties contre les défauts ?', 'fr', 'fr-garantie'],
      ['a misspelled French question', 'garantie des chausures', 'fr', 'fr-garantie'],
      ['a question in a language without a stemmer', 'gift cards', 'ja', 'en-gift-cards'],
    ])('%s: %s', async (_case, question, lang, expected) => {
      expect((await refs(question, lang))[0]).toBe(expected);
    });
  });

  it('returns heading, url, the matching passage and a score between 0 and 1, best first', async () => {
    const { results } = await search.answer(account, { question: 'Is shipping free?', lang: 'en' });
    expect(results[0]).toEqual({
      external_ref: 'en-shipping',
      heading: 'Shipping times and costs',
      url: null,
      passage: expect.stringContaining('shipping is free above 50 euros'),
      score: expect.any(Number),
    });
    for (const result of results) expect(result.score).toBeGreaterThan(0);
    for (const result of results) expect(result.score).toBeLessThan(1);
    expect(results.map((r) => r.score)).toEqual([...results.map((r) => r.score)].sort((a, b) => b - a));
  });

  it('honours the limit and finds nothing for words no piece holds', async () => {
    expect((await search.answer(account, { question: 'shoes', lang: 'en', limit: 1 })).results).toHaveLength(1);
    expect(await refs('xylophone zeppelin', 'en')).toEqual([]);
    expect(await refs('the of and', 'en')).toEqual([]);
  });

  it("never finds another account's pieces", async () => {
    expect(await refs('Shipping times and costs', 'en', other)).toEqual([]);
    await pieces.upsert(other, 'en-shipping', { heading: 'Our shipping', text: 'We only ship to Switzerland, within 10 days.' });
    const { results } = await search.answer(other, { question: 'shipping', lang: 'en' });
    expect(results.map((r) => [r.external_ref, r.heading])).toEqual([['en-shipping', 'Our shipping']]);
    // A first piece in another language is searched at once (the languages are read with each search).
    await pieces.upsert(other, 'de-versand', {
      heading: 'Unser Versand',
      text: 'Wir versenden nur in die Schweiz, innerhalb von 10 Tagen.',
    });
    expect(await refs('Wie lange dauert der Versand?', 'de', other)).toEqual(['de-versand']);
  });

  it('follows changes at once: a replaced text is found by its new words, a deleted piece no more', async () => {
    await pieces.upsert(account, 'en-gift-cards', {
      heading: 'Gift vouchers',
      text: 'Vouchers never expire and can be topped up in any store.',
    });
    expect(await refs('exchanged for cash', 'en')).not.toContain('en-gift-cards');
    expect((await refs('vouchers expire', 'en'))[0]).toBe('en-gift-cards');
    await pieces.delete(account, 'en-gift-cards');
    expect(await refs('vouchers expire', 'en')).toEqual([]);
  });

  it('keeps the vocabulary equal to the words of the pieces through inserts, updates and deletes', async () => {
    const owner = randomUUID();
    await pieces.bulkUpsert(owner, [
      { external_ref: 'a', heading: 'Alpha', text: 'Shared words and alpha only words here.' },
      { external_ref: 'b', heading: 'Beta', text: 'Shared words and beta only words here.' },
    ]);
    expect(await vocabulary(owner)).toEqual(await recomputedVocabulary(owner));
    expect((await vocabulary(owner)).find((w) => w.word === 'shared')?.pieces).toBe(2);
    await pieces.bulkUpsert(owner, [{ external_ref: 'a', heading: 'Gamma', text: 'Completely different gamma text now.' }]);
    expect(await vocabulary(owner)).toEqual(await recomputedVocabulary(owner));
    expect((await vocabulary(owner)).map((w) => w.word)).not.toContain('alpha');
    await pieces.delete(owner, 'b');
    await pieces.delete(owner, 'a');
    expect(await vocabulary(owner)).toEqual([]);
  });
});
