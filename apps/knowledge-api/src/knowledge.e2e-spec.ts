import {
  BulkUpsertKnowledgeResponseDto,
  ErrorBody,
  KnowledgeListResponseDto,
  KnowledgePieceDto,
  KnowledgeSearchBatchResponse,
  KnowledgeSearchResponse,
  KnowledgeSearchResult,
  TaughtItem,
  TaughtPage,
} from '@svc/contracts';
import { execute, queryOne, queryRows } from '@svc/persistence';
import { generateInternalKey, InternalAuth, PUBLIC_KEYS_SETTING } from '@svc/platform';
import { DOMAIN_EXCHANGE } from '@svc/messaging';
import { Stack, startStack, tapExchange, TestAccount, waitFor } from '@svc/testing';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;

const piece = (overrides: object = {}) => ({
  heading: 'Shipping times',
  text: 'We ship every order within two working days.',
  ...overrides,
});
const item = (ref: string, overrides: object = {}) => ({ external_ref: ref, ...piece(overrides) });
const items = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => item(`${prefix}-${String(i).padStart(3, '0')}`));

describe('knowledge-api through the gateway (processes, real PostgreSQL)', () => {
  let stack: Stack;

  const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;
  const put = (ref: string, body: object, key?: string) =>
    stack.call(`/knowledge/${encodeURIComponent(ref)}`, { method: 'PUT', json: body, key });
  const bulk = (sent: object[], key?: string) => stack.call('/knowledge/bulk', { method: 'POST', json: { items: sent }, key });
  const lookup = async (ref: string, key?: string) =>
    (await json<KnowledgeListResponseDto>(await stack.call(`/knowledge?external_ref=${encodeURIComponent(ref)}`, { key }))).items;
  const count = async (account: TestAccount) =>
    Number(
      (
        await queryRows<{ n: string }>(stack.dataSource, 'SELECT count(*) AS n FROM knowledge.pieces WHERE account_id = $1', [
          account.accountId,
        ])
      )[0]?.n,
    );
  const expectError = async (response: Response, status: number, code: string, paths?: string[]) => {
    const body = await json<ErrorBody>(response);
    expect({ status: response.status, code: body.error.code }).toEqual({ status, code });
    if (paths) expect([...new Set(body.error.details?.map((d) => d.path))]).toEqual(paths);
  };

  beforeAll(async () => {
    // Many writes per test: the per-key write limits are not what these tests are about.
    stack = await startStack(['knowledge-api'], {
      appEnv: { gateway: { WRITE_LIMIT_PER_MINUTE: '100000', WRITE_LIMIT_PER_HOUR: '100000' } },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  describe('PUT /knowledge/{externalRef}', () => {
    it('creates (201) then replaces (200) a piece; an omitted url removes the link', async () => {
      const created = await put('faq/shipping', piece({ url: 'https://www.example.com/help/shipping' }));
      expect(created.status).toBe(201);
      const first = await json<KnowledgePieceDto>(created);
      expect(first).toEqual({
        external_ref: 'faq/shipping',
        heading: 'Shipping times',
        text: 'We ship every order within two working days.',
        url: 'https://www.example.com/help/shipping',
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: first.created_at,
      });
      const replaced = await put('faq/shipping', piece({ heading: 'Delivery' }));
      expect(replaced.status).toBe(200);
      const second = await json<KnowledgePieceDto>(replaced);
      expect(second).toEqual({ ...first, heading: 'Delivery', url: null, updated_at: expect.stringMatching(TIMESTAMP) });
      expect(second.updated_at > first.updated_at).toBe(true);
      expect(await lookup('faq/shipping')).toEqual([second]);
    });

    it.each([
      ['heading of 300 characters', { heading: 'h'.repeat(300) }],
      ['text of 15 characters', { text: 't'.repeat(15) }],
      ['text of 8,000 code points, emoji-heavy', { text: `${'🚚📦'.repeat(3999)}ok` }],
    ])('accepts a %s', async (_case, overrides) => {
      expect((await put('boundary-ok', piece(overrides))).status).toBeLessThan(300);
    });

    it.each([
      ['heading of 301 characters', { heading: 'h'.repeat(301) }, 'heading'],
      ['text of 14 characters', { text: 't'.repeat(14) }, 'text'],
      ['text of 8,001 code points, emoji-heavy', { text: `${'🚚📦'.repeat(4000)}!` }, 'text'],
      ['missing text', { text: undefined }, 'text'],
      ['ftp url', { url: 'ftp://example.com/x' }, 'url'],
    ])('refuses a %s with 400 validation_failed naming it, and writes nothing', async (_case, overrides, path) => {
      await expectError(await put('boundary-bad', piece(overrides)), 400, 'validation_failed', [path]);
      expect(await lookup('boundary-bad')).toEqual([]);
    });

    it('refuses an external_ref of 256 characters; accepts 255 code points of emoji', async () => {
      await expectError(await put('r'.repeat(256), piece()), 400, 'validation_failed', ['external_ref']);
      expect((await put('🔑'.repeat(255), piece())).status).toBe(201);
    });

    it('refuses a body that is not JSON', async () => {
      const response = await stack.call('/knowledge/x', {
        method: 'PUT',
        body: '{"heading":',
        headers: { 'content-type': 'application/json' },
      });
      await expectError(response, 400, 'invalid_json');
    });
  });

  describe('POST /knowledge/bulk', () => {
    it('writes 50 pieces at once (200), counting created and updated, in the order sent', async () => {
      const first = await bulk(items('bulk', 50));
      expect(first.status).toBe(200);
      const result = await json<BulkUpsertKnowledgeResponseDto>(first);
      expect([result.created, result.updated, result.items.length]).toEqual([50, 0, 50]);
      expect(result.items.map((p) => p.external_ref)).toEqual(items('bulk', 50).map((i) => i.external_ref));
      const again = await json<BulkUpsertKnowledgeResponseDto>(await bulk([item('bulk-049', { heading: 'Changed' }), item('bulk-new')]));
      expect([again.created, again.updated]).toEqual([1, 1]);
      expect(again.items.map((p) => [p.external_ref, p.heading])).toEqual([
        ['bulk-049', 'Changed'],
        ['bulk-new', 'Shipping times'],
      ]);
    });

    it('refuses 0 and 51 items', async () => {
      await expectError(await bulk([]), 400, 'validation_failed', ['items']);
      await expectError(await bulk(items('too-many', 51)), 400, 'validation_failed', ['items']);
      expect(await lookup('too-many-000')).toEqual([]);
    });

    it('one bad item writes nothing, and every problem is named items[i].field', async () => {
      const sent = [...items('atomic', 10), item('atomic-bad', { text: 'too short' }), item('atomic-url', { url: 'javascript:alert(1)' })];
      await expectError(await bulk(sent), 400, 'validation_failed', ['items[10].text', 'items[11].url']);
      expect(await lookup('atomic-000')).toEqual([]);
    });

    it('refuses an external_ref repeated in the batch and writes nothing', async () => {
      await expectError(await bulk([item('dup-a'), item('dup-b'), item('dup-a')]), 400, 'validation_failed', ['items[2].external_ref']);
      expect(await lookup('dup-a')).toEqual([]);
    });
  });

  describe('GET /knowledge', () => {
    it('pages through every piece in external_ref order with after, limit, next_after and more', async () => {
      const account = await stack.newAccount('Pager');
      await bulk(
        ['b', 'a', 'é', 'B', 'c'].map((ref) => item(ref)),
        account.key,
      );
      const page = async (query: string) => json<KnowledgeListResponseDto>(await stack.call(`/knowledge${query}`, { key: account.key }));
      const first = await page('?limit=2');
      expect([first.items.map((p) => p.external_ref), first.next_after, first.more]).toEqual([['B', 'a'], 'a', true]);
      const second = await page(`?limit=2&after=${first.next_after}`);
      expect([second.items.map((p) => p.external_ref), second.next_after, second.more]).toEqual([['b', 'c'], 'c', true]);
      const third = await page(`?limit=2&after=${second.next_after}`);
      expect([third.items.map((p) => p.external_ref), third.next_after, third.more]).toEqual([['é'], 'é', false]);
      const past = await page(`?after=${encodeURIComponent('é')}`);
      expect(past).toEqual({ items: [], next_after: 'é', more: false });
      expect((await page('')).items).toHaveLength(5);
    });

    it.each([['limit=0'], ['limit=201'], ['limit=ten'], ['external_ref=a&limit=5'], ['sort=asc']])(
      'refuses ?%s with 400 invalid_parameter',
      async (query) => {
        await expectError(await stack.call(`/knowledge?${query}`), 400, 'invalid_parameter');
      },
    );
  });

  describe('DELETE /knowledge/{externalRef}', () => {
    it('removes a piece (204), then answers 404', async () => {
      await put('to-delete', piece());
      expect((await stack.call('/knowledge/to-delete', { method: 'DELETE' })).status).toBe(204);
      expect(await lookup('to-delete')).toEqual([]);
      await expectError(await stack.call('/knowledge/to-delete', { method: 'DELETE' }), 404, 'not_found');
    });
  });

  describe('accounts', () => {
    it("never see, change or delete each other's pieces", async () => {
      await put('shared-ref', piece({ heading: 'Mine' }));
      expect(await lookup('shared-ref', stack.other.key)).toEqual([]);
      await expectError(await stack.call('/knowledge/shared-ref', { method: 'DELETE', key: stack.other.key }), 404, 'not_found');
      expect((await put('shared-ref', piece({ heading: 'Theirs' }), stack.other.key)).status).toBe(201);
      expect((await lookup('shared-ref'))[0]?.heading).toBe('Mine');
      expect((await lookup('shared-ref', stack.other.key))[0]?.heading).toBe('Theirs');
    });
  });

  describe('the 5,000 pieces quota', () => {
    it('is never exceeded by concurrent bulk calls: the ones that do not fit get limit_exceeded and write nothing', async () => {
      const account = await stack.newAccount('Full');
      await execute(
        stack.dataSource,
        `INSERT INTO knowledge.pieces (account_id, external_ref, heading, text, lang)
         SELECT $1, 'preloaded-' || i, 'Preloaded', 'A piece loaded directly for the quota test.', 'english' FROM generate_series(1, 4900) AS i`,
        [account.accountId],
      );
      const responses = await Promise.all([0, 1, 2, 3, 4].map((batch) => bulk(items(`batch${batch}`, 50), account.key)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 400, 400, 400]);
      for (const response of responses.filter((r) => r.status === 400)) await expectError(response, 400, 'limit_exceeded');
      expect(await count(account)).toBe(5000);

      await expectError(await put('one-more', piece(), account.key), 400, 'limit_exceeded');
      expect((await put('preloaded-1', piece(), account.key)).status).toBe(200);
      expect((await stack.call('/knowledge/preloaded-2', { method: 'DELETE', key: account.key })).status).toBe(204);
      expect((await put('one-more', piece(), account.key)).status).toBe(201);
      expect(await count(account)).toBe(5000);
    });
  });

  it('every change and deletion publishes a knowledge.changed message through the outbox, one per piece, and the outbox keeps no copy', async () => {
    const account = await stack.newAccount('Outbox');
    const tap = await tapExchange(stack.env['RABBITMQ_URL']!, DOMAIN_EXCHANGE);
    try {
      await put('o-1', piece(), account.key);
      await bulk([item('o-2'), item('o-3')], account.key);
      await stack.call('/knowledge/o-1', { method: 'DELETE', key: account.key });
      await bulk([item('o-4'), item('o-4')], account.key); // refused: nothing enqueued
      await stack.call('/knowledge/o-3', { method: 'DELETE', key: account.key }); // the last one: everything before it is in by then
      type Changed = {
        routingKey: string;
        body: { kind: string; account_id: string; at: string; data: { external_ref: string; change: string } };
      };
      const mine = () => (tap.messages as Changed[]).filter((m) => m.body.account_id === account.accountId);
      const last = (m: Changed) => m.body.data.external_ref === 'o-3' && m.body.data.change === 'deleted';
      await waitFor('the last change to be published', async () => (mine().some(last) ? true : undefined), 15_000);
      // In commit order (the two pieces of one bulk call share their transaction).
      const ordered = mine().sort(
        (a, b) => a.body.at.localeCompare(b.body.at) || a.body.data.external_ref.localeCompare(b.body.data.external_ref),
      );
      expect(ordered.map((m) => [m.routingKey, m.body.kind, m.body.data])).toEqual([
        ['knowledge.changed', 'knowledge.changed', { external_ref: 'o-1', change: 'upserted' }],
        ['knowledge.changed', 'knowledge.changed', { external_ref: 'o-2', change: 'upserted' }],
        ['knowledge.changed', 'knowledge.changed', { external_ref: 'o-3', change: 'upserted' }],
        ['knowledge.changed', 'knowledge.changed', { external_ref: 'o-1', change: 'deleted' }],
        ['knowledge.changed', 'knowledge.changed', { external_ref: 'o-3', change: 'deleted' }],
      ]);
      const kept = async () =>
        (
          await queryOne<{ n: number }>(
            stack.dataSource,
            "SELECT count(*)::int AS n FROM knowledge.outbox WHERE body->>'account_id' = $1",
            [account.accountId],
          )
        )?.n;
      await waitFor('the outbox to keep no copy', async () => ((await kept()) === 0 ? true : undefined), 15_000);
    } finally {
      await tap.close();
    }
  });

  describe('what the team taught the assistant (internal, for the console and MCP)', () => {
    const call = async (
      method: string,
      route: string,
      body?: unknown,
      account = stack.account,
      caller: 'console' | 'mcp-server' | 'chat' = 'console',
    ) => {
      const context = await InternalAuth.fromEnv(caller, stack.env).sign('knowledge-api', {
        account: { id: account.accountId, name: 'Acme', plan: 'scale' },
        keyId: caller === 'console' ? 'console:42' : 'key-7',
        requestId: 'teach-test',
      });
      return fetch(`${stack.services['knowledge-api']?.internalUrl}${route}`, {
        method,
        headers: { 'x-svc-context': context, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    };
    const teach = (body: unknown, account?: TestAccount, caller?: 'console' | 'mcp-server' | 'chat') =>
      call('POST', '/internal/knowledge/taught', body, account, caller);
    const answer = async (question: string, account = stack.account) => {
      const context = await InternalAuth.fromEnv('chat', stack.env).sign('knowledge-api', {
        account: { id: account.accountId, name: 'Acme', plan: 'scale' },
        keyId: 'chat',
        requestId: 'teach-search',
      });
      const response = await fetch(`${stack.services['knowledge-api']?.internalUrl}/internal/knowledge/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-context': context },
        body: JSON.stringify({ question, lang: 'en' }),
      });
      return (await json<KnowledgeSearchResponse>(response)).results.map((r) => r.external_ref);
    };
    const taughtRows = async (account: TestAccount) =>
      queryRows<{ id: string; question: string }>(
        stack.dataSource,
        'SELECT id::text AS id, question FROM knowledge.taught WHERE account_id = $1',
        [account.accountId],
      );

    beforeAll(async () => {
      await put('teach-bikes', { heading: 'Bicycle hire', text: 'We hire out city bicycles by the day, helmets included.' });
      await put('teach-hours', { heading: 'Opening hours', text: 'The shop opens at nine and closes at six, Monday to Saturday.' });
    });

    it('teaches a question for a piece (201): the search answers it and a paraphrase from that piece; removing it (204) takes it back', async () => {
      expect(await answer('can my kid borrow a tandem?')).toEqual([]);
      const created = await teach({ question: 'Can my kid borrow a tandem?', lang: 'en', external_ref: 'teach-bikes' });
      expect(created.status).toBe(201);
      const item = await json<TaughtItem>(created);
      expect(item).toEqual({
        id: expect.any(Number),
        question: 'Can my kid borrow a tandem?',
        lang: 'en',
        external_ref: 'teach-bikes',
        created_at: expect.stringMatching(TIMESTAMP),
        created_by: 'team:42',
      });
      expect(await answer('can my kid borrow a tandem?')).toEqual(['teach-bikes']);
      expect((await answer('is there a tandem to borrow'))[0]).toBe('teach-bikes');

      const removed = await call('DELETE', `/internal/knowledge/taught/${item.id}`);
      expect(removed.status).toBe(204);
      expect(await answer('can my kid borrow a tandem?')).toEqual([]);
      await expectError(await call('DELETE', `/internal/knowledge/taught/${item.id}`), 404, 'not_found');
    });

    it('"no piece answers this" (external_ref null): a question the search answered answers nothing, until removed', async () => {
      expect(await answer('when does the shop open on Saturday?')).toEqual(['teach-hours']);
      const created = await teach({ question: 'When does the shop open on Saturday?', external_ref: null }, undefined, 'mcp-server');
      expect(created.status).toBe(201);
      const item = await json<TaughtItem>(created);
      expect(item).toMatchObject({ external_ref: null, lang: 'en', created_by: 'agent:key-7' });
      expect(await answer('when does the shop open on Saturday?')).toEqual([]);
      expect((await call('DELETE', `/internal/knowledge/taught/${item.id}`)).status).toBe(204);
      expect(await answer('when does the shop open on Saturday?')).toEqual(['teach-hours']);
    });

    it('refuses an unknown piece (404) and bad input (400) in the error shape, writing nothing', async () => {
      const before = (await taughtRows(stack.account)).length;
      const unknown = await teach({ question: 'Do you hire scooters?', external_ref: 'no-such-piece' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({
        error: { code: 'not_found', message: 'There is no knowledge piece with external_ref "no-such-piece".' },
      });
      // Another account's piece is unknown too.
      await expectError(await teach({ question: 'Do you hire bikes?', external_ref: 'teach-bikes' }, stack.other), 404, 'not_found');
      await expectError(await teach({ question: 'Do you hire scooters?' }), 400, 'validation_failed', ['external_ref']);
      await expectError(await teach({ question: '', external_ref: null }), 400, 'validation_failed', ['question']);
      await expectError(await teach({ question: '?!', external_ref: null }), 400, 'validation_failed', ['question']);
      await expectError(await teach({ question: 'x'.repeat(1001), external_ref: null }), 400, 'validation_failed', ['question']);
      await expectError(await teach({ question: 'hi', external_ref: 12 }), 400, 'validation_failed', ['external_ref']);
      await expectError(await teach({ question: 'hi', lang: 'not a tag', external_ref: null }), 400, 'validation_failed', ['lang']);
      await expectError(await teach({ question: 'hi', external_ref: null, extra: 1 }), 400, 'validation_failed');
      await expectError(await teach('{"question":'), 400, 'invalid_json');
      await expectError(await call('DELETE', '/internal/knowledge/taught/abc'), 400, 'validation_failed', ['id']);
      await expectError(await call('GET', '/internal/knowledge/taught?limit=0'), 400, 'invalid_parameter', ['limit']);
      expect((await taughtRows(stack.account)).length).toBe(before);
    });

    it('the same question taught 30 times at once is one row; taught again (other case and spacing) it replaces the earlier teaching', async () => {
      const responses = await Promise.all(
        Array.from({ length: 30 }, () => teach({ question: 'Are helmets free?', lang: 'en', external_ref: 'teach-bikes' })),
      );
      expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 30 }, () => 201));
      expect((await taughtRows(stack.account)).filter((r) => r.question === 'Are helmets free?')).toHaveLength(1);
      const again = await json<TaughtItem>(await teach({ question: 'are  HELMETS free', external_ref: null }));
      const rows = (await taughtRows(stack.account)).filter((r) => /helmets/i.test(r.question));
      expect(rows).toEqual([{ id: String(again.id), question: 'are  HELMETS free' }]);
      expect(await answer('are helmets free')).toEqual([]);
      expect((await call('DELETE', `/internal/knowledge/taught/${again.id}`)).status).toBe(204);
    });

    it("lists newest first, page by page, only the caller account's; the chat may not call these routes", async () => {
      const taught: TaughtItem[] = [];
      for (const question of ['How late are you open?', 'Open on Sunday?', 'Do you open early?'])
        taught.push(await json<TaughtItem>(await teach({ question, lang: 'en', external_ref: 'teach-hours' })));
      const first = await json<TaughtPage>(await call('GET', '/internal/knowledge/taught?limit=2'));
      expect(first.items.map((i) => i.question)).toEqual(['Do you open early?', 'Open on Sunday?']);
      expect(first.more).toBe(true);
      const second = await json<TaughtPage>(await call('GET', `/internal/knowledge/taught?limit=2&after=${first.next_after}`));
      expect(second.items.map((i) => i.question)).toEqual(['How late are you open?']);
      expect(second.more).toBe(false);
      expect((await json<TaughtPage>(await call('GET', '/internal/knowledge/taught', undefined, stack.other))).items).toEqual([]);
      await expectError(await call('DELETE', `/internal/knowledge/taught/${taught[0]?.id}`, undefined, stack.other), 404, 'not_found');
      await expectError(await teach({ question: 'Open?', external_ref: null }, undefined, 'chat'), 403, 'forbidden');
      for (const item of taught) expect((await call('DELETE', `/internal/knowledge/taught/${item.id}`)).status).toBe(204);
    });
  });

  describe('the assistant search (internal)', () => {
    const post = async (
      route: string,
      account: TestAccount,
      body: unknown,
      audience = 'knowledge-api',
      auth = InternalAuth.fromEnv('chat', stack.env),
    ) => {
      const context = await auth.sign(audience, {
        account: { id: account.accountId, name: 'Acme', plan: 'scale' },
        keyId: 'chat',
        requestId: 'search-test',
      });
      return fetch(`${stack.services['knowledge-api']?.internalUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-context': context },
        body: JSON.stringify(body),
      });
    };
    const searchAs = (account: TestAccount, question: string, lang: string, audience?: string, auth?: InternalAuth) =>
      post('/internal/knowledge/search', account, { question, lang }, audience, auth);

    it('answers several questions of one account in one call, each as alone, in their order; 1 to 32 of them', async () => {
      await put('faq-gift', { heading: 'Gift cards', text: 'Gift cards are valid for three years and can be used online.' });
      const questions = [
        { question: 'how long is a gift card valid', lang: 'en' },
        { question: 'Do you sell quantum computers?', lang: 'en', limit: 1 },
        { question: 'returnd my shoos', lang: 'en' },
      ];
      const response = await post('/internal/knowledge/searches', stack.account, { searches: questions });
      expect(response.status).toBe(200);
      const { results } = await json<KnowledgeSearchBatchResponse>(response);
      const alone = await Promise.all(
        questions.map(
          async (q) => (await json<KnowledgeSearchResponse>(await post('/internal/knowledge/search', stack.account, q))).results,
        ),
      );
      expect(results).toEqual(alone);
      expect((results[0] as KnowledgeSearchResult[])[0]?.external_ref).toBe('faq-gift');
      for (const searches of [[], Array.from({ length: 33 }, () => questions[0]), 'x']) {
        const refused = await post('/internal/knowledge/searches', stack.account, { searches });
        expect(refused.status).toBe(400);
        expect((await json<{ error: { code: string } }>(refused)).error.code).toBe('validation_failed');
      }
    });

    it('refuses a bad search of a batch in its place and answers the others; a language named like a key is unknown', async () => {
      await put('faq-gift', { heading: 'Gift cards', text: 'Gift cards are valid for three years and can be used online.' });
      const good = { question: 'how long is a gift card valid', lang: 'en' };
      const searches = [
        good,
        { question: '', lang: 'en' },
        { question: 'gift card', lang: '__proto__' },
        null,
        'gift card',
        { question: 'gift card', lang: 'en', limit: 0 },
        { question: 'gift card', lang: 'en', topic: 'x' },
        { ...good, lang: 'constructor' },
        { ...good, lang: 'toString' },
        good,
      ];
      const response = await post('/internal/knowledge/searches', stack.account, { searches });
      expect(response.status).toBe(200);
      const { results } = await json<KnowledgeSearchBatchResponse>(response);
      const alone = (await json<KnowledgeSearchResponse>(await post('/internal/knowledge/search', stack.account, good))).results;
      expect(alone[0]?.external_ref).toBe('faq-gift');
      const refused = (path: string) => ({
        error: { code: 'validation_failed', message: expect.any(String), details: [expect.objectContaining({ path })] },
      });
      expect(results).toEqual([
        alone,
        refused('searches[1].question'),
        refused('searches[2].lang'),
        refused('searches[3]'),
        refused('searches[4]'),
        refused('searches[5].limit'),
        refused('searches[6].topic'),
        refused('searches[7].lang'),
        refused('searches[8].lang'),
        alone,
      ]);
      // Alone, such a language is refused as a field, never a 500; a tag that merely starts like one is simply unknown.
      for (const lang of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
        const one = await post('/internal/knowledge/search', stack.account, { ...good, lang });
        expect(one.status).toBe(400);
        expect((await json<{ error: { code: string } }>(one)).error.code).toBe('validation_failed');
      }
      const unknown = await post('/internal/knowledge/search', stack.account, { ...good, lang: 'pro-to' });
      expect(unknown.status).toBe(200);
    });

    it('answers 30 batches with a bad search at once, each good search alike', async () => {
      await put('faq-gift', { heading: 'Gift cards', text: 'Gift cards are valid for three years and can be used online.' });
      const good = { question: 'how long is a gift card valid', lang: 'en' };
      const answers = await Promise.all(
        Array.from({ length: 30 }, () =>
          post('/internal/knowledge/searches', stack.account, { searches: [{ question: '', lang: 'x' }, good] }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        const { results } = await json<KnowledgeSearchBatchResponse>(answer);
        expect(results[0]).toMatchObject({ error: { code: 'validation_failed' } });
        expect((results[1] as KnowledgeSearchResult[])[0]?.external_ref).toBe('faq-gift');
      }
    });

    it('finds a piece as soon as it is written, misspelled, and only for its own account', async () => {
      await put('faq-returns', { heading: 'Returning shoes', text: 'You can return your shoes within 30 days if they are unworn.' });
      const response = await searchAs(stack.account, 'returnd my shoos', 'en');
      expect(response.status).toBe(200);
      const { results } = await json<KnowledgeSearchResponse>(response);
      expect(results[0]).toEqual({
        external_ref: 'faq-returns',
        heading: 'Returning shoes',
        url: null,
        passage: expect.stringContaining('return your shoes'),
        score: expect.any(Number),
      });
      expect(
        (await json<KnowledgeSearchResponse>(await searchAs(stack.other, 'can I return my shoes?', 'en'))).results.map(
          (r) => r.external_ref,
        ),
      ).not.toContain('faq-returns');
    });

    it('is not reachable through the gateway, and refuses a call without a signed context', async () => {
      expect((await stack.call('/internal/knowledge/search', { method: 'POST', json: { question: 'x', lang: 'en' } })).status).toBe(404);
      const direct = await fetch(`${stack.services['knowledge-api']?.internalUrl}/internal/knowledge/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'shoes', lang: 'en' }),
      });
      expect(direct.status).toBe(401);
    });

    it('refuses a context signed for another service (its audience) with 401 in the error shape', async () => {
      const response = await searchAs(stack.account, 'shoes', 'en', 'contacts-api');
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      expect((await searchAs(stack.account, 'shoes', 'en')).status).toBe(200);
    });

    it('accepts the chat only: a context signed by another app is 403, one signed with a key not listed 401', async () => {
      const body = { question: 'shoes', lang: 'en' };
      const as = (caller: 'gateway' | 'console') =>
        post('/internal/knowledge/search', stack.account, body, 'knowledge-api', InternalAuth.fromEnv(caller, stack.env));
      for (const caller of ['gateway', 'console'] as const) {
        const refused = await as(caller);
        expect(refused.status).toBe(403);
        expect(await refused.json()).toEqual({ error: { code: 'forbidden', message: `This route does not accept calls from ${caller}.` } });
      }
      const stranger = new InternalAuth({ name: 'chat', signingKey: generateInternalKey().seed });
      expect((await post('/internal/knowledge/search', stack.account, body, 'knowledge-api', stranger)).status).toBe(401);
    });

    // Last in the suite: knowledge-api keeps the rotated list from here on.
    it("during a rotation of the chat's key accepts contexts signed with the old and the new key, and no other", async () => {
      const next = generateInternalKey();
      const listed = stack.env[PUBLIC_KEYS_SETTING] as string;
      await stack.restart('knowledge-api', 'SIGTERM', { [PUBLIC_KEYS_SETTING]: `${listed} chat:${next.publicKey}` });
      const rotated = new InternalAuth({ name: 'chat', signingKey: next.seed });
      expect((await searchAs(stack.account, 'shoes', 'en', 'knowledge-api', rotated)).status).toBe(200);
      expect((await searchAs(stack.account, 'shoes', 'en')).status).toBe(200);
      // The gateway's key is unchanged: its calls go through.
      expect((await stack.call('/knowledge?external_ref=faq-returns')).status).toBe(200);
      const stranger = new InternalAuth({ name: 'chat', signingKey: generateInternalKey().seed });
      expect((await searchAs(stack.account, 'shoes', 'en', 'knowledge-api', stranger)).status).toBe(401);
    });
  });
});
