import { KnowledgeSearchResult } from '@svc/contracts';
import { KnowledgeClient } from '@svc/internal-clients';
import { ApiError, createLogger, GATEWAY_CONTEXT_HEADER, generateInternalKey, InternalAuth } from '@svc/platform';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { AnswerWriter } from './answer-writer';
import { LlmClient } from './llm.client';

/** The chat's own key signs its searches; knowledge-api (the fake) verifies with its public key. */
const CHAT = generateInternalKey();
const RETURNS: KnowledgeSearchResult = {
  external_ref: 'returns',
  heading: 'Returns and refunds',
  url: 'https://shop.example/returns',
  passage: 'You can return any item within 30 days of delivery.',
  score: 0.5,
};

type Handler = (body: Record<string, unknown>, request: IncomingMessage, response: ServerResponse) => void;

/** A local stand-in for knowledge-api's search and an OpenAI-compatible API, in one server. */
class FakeUpstreams {
  llm: Handler = (_body, _request, response) => response.writeHead(500).end();
  search: KnowledgeSearchResult[] = [RETURNS];
  readonly llmCalls: Array<{ body: Record<string, unknown>; authorization?: string }> = [];
  /** Each search asked, and the questions of each call. */
  readonly searchCalls: Array<Record<string, unknown>> = [];
  readonly searchBatches: Array<{ context: string; questions: unknown[] }> = [];
  /** The next search call fails (500). */
  failNext = false;
  /** Questions knowledge-api refuses alone (an error in their place of the batch). */
  refused = new Set<string>();
  /** How long a search call takes (plus `searchDelayPerQuestionMs` a question), and the most calls in flight at once. */
  searchDelayPerQuestionMs = 0;
  searchDelayMs = 0;
  searchesInFlight = 0;
  mostSearchesInFlight = 0;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeUpstreams> {
    const holder: { fake?: FakeUpstreams } = {};
    const server = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
        const fake = holder.fake as FakeUpstreams;
        if (request.url === '/internal/knowledge/searches' && typeof request.headers[GATEWAY_CONTEXT_HEADER] === 'string') {
          const searches = body['searches'] as Array<Record<string, unknown>>;
          fake.searchCalls.push(...searches);
          fake.searchBatches.push({
            context: String(request.headers[GATEWAY_CONTEXT_HEADER]),
            questions: searches.map((s) => s['question']),
          });
          const fail = fake.failNext;
          fake.failNext = false;
          fake.searchesInFlight += 1;
          fake.mostSearchesInFlight = Math.max(fake.mostSearchesInFlight, fake.searchesInFlight);
          setTimeout(
            () => {
              fake.searchesInFlight -= 1;
              if (fail) response.writeHead(500).end();
              else
                response.writeHead(200, { 'content-type': 'application/json' }).end(
                  JSON.stringify({
                    results: searches.map((search) =>
                      fake.refused.has(String(search['question']))
                        ? {
                            error: {
                              code: 'validation_failed',
                              message: 'refused',
                              details: [{ path: 'searches[0].question', message: 'no' }],
                            },
                          }
                        : fake.search,
                    ),
                  }),
                );
            },
            fake.searchDelayMs + fake.searchDelayPerQuestionMs * searches.length,
          );
        } else if (request.url === '/v1/chat/completions') {
          fake.llmCalls.push({ body, authorization: request.headers.authorization });
          fake.llm(body, request, response);
        } else response.writeHead(404).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    holder.fake = new FakeUpstreams(server);
    return holder.fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

describe('AnswerWriter against local fake knowledge-api and LLM servers', () => {
  let fake: FakeUpstreams;
  let knowledge: KnowledgeClient;
  const logger = createLogger('test', 'silent');
  const writer = (timeoutMs = 1_000) =>
    new AnswerWriter(knowledge, new LlmClient({ baseUrl: `${fake.url}/v1`, model: 'test-model', apiKey: 'sk-test', timeoutMs }, logger), {
      ASSISTANT_SEARCH_CONCURRENCY: 4,
    });

  beforeAll(async () => {
    fake = await FakeUpstreams.start();
    knowledge = new KnowledgeClient({
      url: fake.url,
      auth: new InternalAuth({ name: 'chat', signingKey: CHAT.seed }),
      timeoutMs: 2_000,
      logger,
    });
  });

  afterAll(async () => {
    await knowledge?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.search = [RETURNS];
    fake.llmCalls.length = 0;
    fake.searchCalls.length = 0;
    fake.searchBatches.length = 0;
    fake.searchDelayMs = 0;
    fake.searchDelayPerQuestionMs = 0;
    fake.mostSearchesInFlight = 0;
    fake.refused.clear();
  });

  it("without a writer: the extractive answer, searched in the customer's language", async () => {
    const reply = await new AnswerWriter(knowledge, null, { ASSISTANT_SEARCH_CONCURRENCY: 4 }).reply('acc', 'de', 'Rückgabe?', 'r1');
    expect(reply.citation?.external_ref).toBe('returns');
    expect(reply.text).toContain(RETURNS.passage);
    expect(fake.searchCalls).toEqual([{ question: 'Rückgabe?', lang: 'de', limit: 3 }]);
    expect(fake.llmCalls).toEqual([]);
  });

  it('with a writer: its reply from the top passages only, citing the same piece, with the link', async () => {
    fake.search = [RETURNS, { ...RETURNS, external_ref: 'weak', passage: 'unrelated', score: 0.001 }];
    fake.llm = (_body, _request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Returns are free for 30 days.' } }] }));
    const reply = await writer().reply('acc', 'en', 'Can I return it?', 'r2');
    expect(reply).toEqual({
      text: 'Returns are free for 30 days.\n\nMore: https://shop.example/returns',
      citation: { external_ref: 'returns', heading: 'Returns and refunds', url: 'https://shop.example/returns' },
      offersPerson: false,
    });
    const [call] = fake.llmCalls;
    expect(call?.authorization).toBe('Bearer sk-test');
    expect(call?.body['model']).toBe('test-model');
    const prompt = JSON.stringify(call?.body['messages']);
    expect(prompt).toContain(RETURNS.passage);
    expect(prompt).not.toContain('unrelated');
  });

  it('a failing writer (500, or no answer in its body): the extractive answer', async () => {
    fake.llm = (_body, _request, response) => response.writeHead(500).end('boom');
    expect((await writer().reply('acc', 'en', 'Can I return it?', 'r3')).text).toContain(RETURNS.passage);
    fake.llm = (_body, _request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":[]}');
    expect((await writer().reply('acc', 'en', 'Can I return it?', 'r4')).text).toContain(RETURNS.passage);
    expect(fake.llmCalls).toHaveLength(2);
  });

  it('a slow writer: the extractive answer once the timeout has passed, not later', async () => {
    fake.llm = (_body, _request, response) => {
      const timer = setTimeout(
        () =>
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ choices: [{ message: { content: 'late' } }] })),
        5_000,
      );
      response.on('close', () => clearTimeout(timer));
    };
    const started = Date.now();
    const reply = await writer(300).reply('acc', 'en', 'Can I return it?', 'r5');
    expect(reply.text).toContain(RETURNS.passage);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('no good match: the writer is not asked; the reply offers a person', async () => {
    fake.search = [{ ...RETURNS, score: 0.001 }];
    const reply = await writer().reply('acc', 'en', 'quantum computers?', 'r6');
    expect(reply).toMatchObject({ citation: null, offersPerson: true });
    expect(fake.llmCalls).toEqual([]);
  });

  it('many questions at once: at most the set number of calls in flight; the others go together per account, in the order they came', async () => {
    fake.searchDelayMs = 50;
    const limited = new AnswerWriter(knowledge, null, { ASSISTANT_SEARCH_CONCURRENCY: 2 });
    const asked = Array.from({ length: 7 }, (_, i) => ({ account: i === 4 ? 'other' : 'acc', question: `Can I return item ${i}?` }));
    const replies = await Promise.all(asked.map(({ account, question }, i) => limited.reply(account, 'en', question, `q${i}`)));
    expect(replies.every((reply) => reply.citation?.external_ref === 'returns')).toBe(true);
    expect(fake.mostSearchesInFlight).toBe(2);
    expect(fake.searchCalls.map((call) => call['question'])).toEqual([0, 1, 2, 3, 5, 6, 4].map((i) => asked[i]?.question));
    const auth = new InternalAuth({ name: 'knowledge-api', publicKeys: `chat:${CHAT.publicKey}` });
    const batches = await Promise.all(
      fake.searchBatches.map(async ({ context, questions }) => ({
        account: (await auth.verify(context, ['chat'])).account.id,
        questions,
      })),
    );
    const of = (...items: number[]) => items.map((i) => asked[i]?.question);
    expect(batches).toEqual([
      { account: 'acc', questions: of(0) },
      { account: 'acc', questions: of(1) },
      { account: 'acc', questions: of(2, 3, 5, 6) },
      { account: 'other', questions: of(4) },
    ]);
  });

  it('answers come back in the order asked, also when a later, smaller call returns first', async () => {
    fake.searchDelayPerQuestionMs = 30;
    const limited = new AnswerWriter(knowledge, null, { ASSISTANT_SEARCH_CONCURRENCY: 2 });
    const answered: string[] = [];
    const ask = (question: string) => limited.reply('acc', 'en', question, question).then(() => answered.push(question));
    const first = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5'].map(ask);
    // q0 and q1 go alone (30 ms); q2–q5 together once a slot is free (120 ms); then q6 goes alone and returns first.
    // Waited for, not slept for: on a busy machine q0 and q1 may take longer than their 30 ms.
    while (fake.searchBatches.length < 3) await sleep(2);
    await Promise.all([...first, ask('q6')]);
    expect(fake.searchBatches.map((batch) => batch.questions)).toEqual([['q0'], ['q1'], ['q2', 'q3', 'q4', 'q5'], ['q6']]);
    expect(answered).toEqual(['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
  });

  it('a failed call fails each question of it (their answers are retried later); the questions after it are still asked', async () => {
    const limited = new AnswerWriter(knowledge, null, { ASSISTANT_SEARCH_CONCURRENCY: 1 });
    fake.searchDelayMs = 50;
    fake.failNext = true;
    const outcomes = ['a?', 'b?', 'c?'].map((question, i) =>
      limited.reply('acc', 'en', question, `x${i}`).then(
        (reply) => reply.citation?.external_ref,
        () => 'failed',
      ),
    );
    expect(await Promise.all(outcomes)).toEqual(['failed', 'returns', 'returns']);
    expect(fake.searchBatches.map((batch) => batch.questions)).toEqual([['a?'], ['b?', 'c?']]);
  });

  it('a question refused alone fails alone: the others of its batch are answered', async () => {
    const limited = new AnswerWriter(knowledge, null, { ASSISTANT_SEARCH_CONCURRENCY: 1 });
    fake.searchDelayMs = 50;
    fake.refused.add('poison?');
    const outcomes = ['first?', 'a?', 'poison?', 'b?'].map((question, i) =>
      limited.reply('acc', 'en', question, `p${i}`).then(
        (reply) => reply.citation?.external_ref,
        (err: unknown) => (err instanceof ApiError ? err.code : 'failed'),
      ),
    );
    expect(await Promise.all(outcomes)).toEqual(['returns', 'returns', 'validation_failed', 'returns']);
    expect(fake.searchBatches.map((batch) => batch.questions)).toEqual([['first?'], ['a?', 'poison?', 'b?']]);
  });

  it('a question the search would refuse is refused before it joins a batch; a language that is no key is English', async () => {
    const limited = new AnswerWriter(knowledge, null, { ASSISTANT_SEARCH_CONCURRENCY: 1 });
    fake.searchDelayMs = 50;
    const outcomes = [
      ['en', 'first?'],
      ['en', '   '],
      ['__proto__', 'a?'],
      ['constructor', 'b?'],
      ['toString', 'c?'],
    ].map(([lang, question], i) =>
      limited.reply('acc', lang as string, question as string, `v${i}`).then(
        (reply) => reply.citation?.external_ref,
        (err: unknown) => (err instanceof ApiError ? err.code : 'failed'),
      ),
    );
    expect(await Promise.all(outcomes)).toEqual(['returns', 'validation_failed', 'returns', 'returns', 'returns']);
    expect(fake.searchBatches.map((batch) => batch.questions)).toEqual([['first?'], ['a?', 'b?', 'c?']]);
    expect(fake.searchCalls.map((call) => call['lang'])).toEqual(['en', 'en', 'en', 'en']);
  });
});
