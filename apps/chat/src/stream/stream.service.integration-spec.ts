import { createDataSource, migrate } from '@svc/persistence';
import { ApiError, createLogger, ReadinessService } from '@svc/platform';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { newVisitorToken, visitorTokenHash } from '../conversations/visitor-token';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from '../migrations';
import { ConversationNotifier } from './conversation-notifier';
import { StreamService } from './stream.service';
import { StreamSlots } from './stream-slots';

/** What a stream writes, as a visitor's connection would receive it. */
class FakeResponse extends EventEmitter {
  status = 0;
  headers: Record<string, string> = {};
  body = '';
  ended = false;

  writeHead(status: number, headers: Record<string, string>): this {
    this.status = status;
    this.headers = headers;
    return this;
  }

  flushHeaders(): void {}

  write(chunk: string): boolean {
    this.body += chunk;
    return true;
  }

  end(): void {
    this.ended = true;
    this.emit('close');
  }
}

const until = async (what: string, test: () => boolean, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

describe('StreamService (real PostgreSQL, LISTEN/NOTIFY)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let repo: ConversationsRepository;
  let notifier: ConversationNotifier;
  let streams: StreamService;
  let slots: StreamSlots;
  const account = randomUUID();
  const logger = createLogger('test', 'silent');
  const made: StreamSlots[] = [];
  /** Slots counted in the shared Redis (keys of this suite's random account and addresses only), or in none at `redisUrl`. */
  const streamSlots = async (
    limits: { VISITOR_STREAMS_PER_ADDRESS: number; VISITOR_STREAMS_PER_ACCOUNT: number },
    ttlMs?: number,
    redisUrl = 'redis://127.0.0.1:6379',
  ): Promise<StreamSlots> => {
    const config = { REDIS_URL: redisUrl, ...limits };
    const created = new StreamSlots(config, new ReadinessService({} as never), logger, ttlMs);
    made.push(created);
    await created.onModuleInit();
    return created;
  };
  /** An IPv4 address and an IPv6 /64 of this run only: the shared Redis counts addresses across suites. */
  const run = randomBytes(2);
  const v4 = (host: number) => `10.${run[0]}.${run[1]}.${host}`;
  const v6 = (host: string) => `2001:db8:${run.toString('hex')}:2::${host}`;

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createDataSource({ schema: CHAT_SCHEMA, url: db.url, migrations: CHAT_MIGRATIONS, poolSize: 4 }).initialize();
    await migrate(dataSource);
    repo = new ConversationsRepository(dataSource);
    notifier = new ConversationNotifier(db.url, logger);
    await notifier.onModuleInit();
    slots = await streamSlots({ VISITOR_STREAMS_PER_ADDRESS: 8, VISITOR_STREAMS_PER_ACCOUNT: 12 });
    streams = new StreamService(repo, notifier, slots, logger, { CHAT_MAX_STREAMS: 20 }, 200);
  });

  afterAll(async () => {
    await Promise.all(made.map((made) => made.onApplicationShutdown()));
    await notifier?.onApplicationShutdown();
    await dataSource?.destroy();
    await db?.drop();
  });

  it('sends the messages after the given id and the state, then each commit live, and pings', async () => {
    const conversation = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    for (const text of ['one', 'two', 'three'])
      await repo.transaction((tx) => tx.addMessage(account, conversation.id, { author: 'customer', text }));
    const response = new FakeResponse();
    await streams.serve(conversation, v4(1), 1, response as unknown as ServerResponse, { 'x-request-id': 'r-1' });
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'x-request-id': 'r-1',
      'cache-control': 'no-cache, no-transform',
    });
    await until('the backlog', () => response.body.includes('three'));
    expect(response.body).not.toContain('"one"');
    expect(response.body).toMatch(/^id: 2\nevent: message\ndata: \{"id":2,"author":"customer","text":"two",/);
    expect(response.body).toContain('event: state\ndata: {"status":"open","handover":"none"}\n\n');

    await repo.transaction((tx) => tx.addMessage(account, conversation.id, { author: 'assistant', text: 'live' }));
    await until('the live message', () => response.body.includes('id: 4\nevent: message'));
    await repo.transaction((tx) =>
      tx.setHandover(account, conversation.id, { status: 'needs_human', handover: 'waiting', reason: 'customer_asked', dueInMs: 60_000 }),
    );
    await until('the state change', () => response.body.includes('data: {"status":"needs_human","handover":"waiting"}'));
    await until('a ping', () => response.body.includes(': ping\n\n'));
    // Each message once, in order.
    expect([...response.body.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])).toEqual(['2', '3', '4']);

    response.emit('close');
    expect(streams.openStreams).toBe(0);
  });

  it('writes a live message from its NOTIFY as PostgreSQL would give it, without a read; a message too long for a NOTIFY is read', async () => {
    const conversation = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    const response = new FakeResponse();
    await streams.serve(conversation, v4(1), 0, response as unknown as ServerResponse, {});
    await until('the first state', () => response.body.includes('event: state'));
    const reads = jest.spyOn(repo, 'streamRead');
    const long = 'ü'.repeat(5_000);
    await repo.transaction((tx) =>
      tx.addMessage(account, conversation.id, {
        author: 'assistant',
        text: 'pushed',
        citation: { external_ref: 'faq-1', heading: 'FAQ', url: null },
      }),
    );
    await until('the pushed message', () => response.body.includes('id: 1\n'));
    expect(reads).not.toHaveBeenCalled();
    await repo.transaction((tx) => tx.addMessage(account, conversation.id, { author: 'customer', text: long }));
    await until('the long message', () => response.body.includes('id: 2\n'));
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
    const written = [...response.body.matchAll(/^data: (\{"id".*)$/gm)].map((m) => JSON.parse(m[1] as string) as unknown);
    expect(written).toEqual(await repo.messages(account, conversation.id));
    expect(response.body).toContain(`data: ${JSON.stringify((await repo.messages(account, conversation.id))[0])}\n`);
    response.emit('close');
  });

  it('a stream of another conversation is not woken; shutdown ends the open streams', async () => {
    const mine = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    const other = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    const response = new FakeResponse();
    await streams.serve(mine, v4(1), 0, response as unknown as ServerResponse, {});
    await until('the first state', () => response.body.includes('event: state'));
    await repo.transaction((tx) => tx.addMessage(account, other.id, { author: 'customer', text: 'not yours' }));
    await sleep(300);
    expect(response.body).not.toContain('not yours');
    streams.beforeApplicationShutdown();
    expect(response.ended).toBe(true);
    expect(streams.openStreams).toBe(0);
  });

  it('counts streams and the conversations they are open on (two tabs on one conversation are one conversation)', async () => {
    const one = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    const two = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    const tabs = [new FakeResponse(), new FakeResponse(), new FakeResponse()];
    await streams.serve(one, v4(1), 0, tabs[0] as unknown as ServerResponse, {});
    await streams.serve(one, v4(1), 0, tabs[1] as unknown as ServerResponse, {});
    await streams.serve(two, v4(1), 0, tabs[2] as unknown as ServerResponse, {});
    expect([streams.openStreams, streams.openConversations]).toEqual([3, 2]);
    tabs[0]!.emit('close');
    expect([streams.openStreams, streams.openConversations]).toEqual([2, 2]);
    tabs[1]!.emit('close');
    expect([streams.openStreams, streams.openConversations]).toEqual([1, 1]);
    tabs[2]!.emit('close');
    expect([streams.openStreams, streams.openConversations]).toEqual([0, 0]);
  });

  /** Opens a stream (on a new conversation of `on` unless `row` is given); what it was refused with, if it was. */
  const open = async (service: StreamService, address: string, row?: ConversationRow, on = account) => {
    const conversation = row ?? (await repo.create(on, visitorTokenHash(newVisitorToken()), 'en', null));
    const response = new FakeResponse();
    try {
      await service.serve(conversation, address, 0, response as unknown as ServerResponse, {});
      return { response, refused: undefined };
    } catch (err) {
      return { response, refused: err as ApiError };
    }
  };

  it('refuses streams past 5 per token (429), past the address limit (429) and past the process cap (503), each with Retry-After; a close frees a slot', async () => {
    const one = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    const tries = await Promise.all(Array.from({ length: 20 }, () => open(streams, v4(9), one)));
    const opened = tries.filter((t) => !t.refused);
    expect(opened).toHaveLength(5);
    for (const { refused, response } of tries.filter((t) => t.refused)) {
      expect(refused?.getStatus()).toBe(429);
      expect(refused?.code).toBe('rate_limited');
      expect(refused?.headers['retry-after']).toBe('10');
      expect(response.status).toBe(0);
    }
    opened[0]!.response.emit('close');
    await sleep(50); // the close gives its slots back

    expect((await open(streams, v4(9), one)).refused).toBeUndefined();

    // The address: 8 streams (5 on `one`, 3 more on other tokens); an IPv6 /64 counts as one address.
    for (let i = 0; i < 3; i += 1) expect((await open(streams, v4(9))).refused).toBeUndefined();
    expect((await open(streams, v4(9))).refused?.getStatus()).toBe(429);
    for (let i = 0; i < 4; i += 1) expect((await open(streams, v6(String(i + 1)))).refused).toBeUndefined();

    // The account: 12 in all (8 + 4), then 429 from any address.
    const full = (await open(streams, v4(10))).refused;
    expect([full?.getStatus(), full?.code, full?.message]).toEqual([429, 'rate_limited', expect.stringContaining('open streams')]);
    expect(streams.openStreams).toBe(12);

    // The process: 20 in all, then 503 for anyone (another account's streams).
    const other = randomUUID();
    for (let i = 0; i < 8; i += 1) expect((await open(streams, v4(20 + i), undefined, other)).refused).toBeUndefined();
    const busy = (await open(streams, v4(30), undefined, other)).refused;
    expect([busy?.getStatus(), busy?.code, busy?.headers['retry-after']]).toEqual([503, 'unavailable', '10']);
    expect(streams.openStreams).toBe(20);
    streams.beforeApplicationShutdown();
    expect(streams.openStreams).toBe(0);
    await sleep(100);
    expect((await open(streams, v4(30), undefined, other)).refused).toBeUndefined();
    streams.beforeApplicationShutdown();
  });

  it('the slots of a process that died expire; an open stream keeps its slots refreshed', async () => {
    const limits = { VISITOR_STREAMS_PER_ADDRESS: 50, VISITOR_STREAMS_PER_ACCOUNT: 50 };
    const dyingSlots = await streamSlots(limits, 600);
    const dying = new StreamService(repo, notifier, dyingSlots, logger, { CHAT_MAX_STREAMS: 20 }, 200);
    const living = new StreamService(repo, notifier, await streamSlots(limits, 600), logger, { CHAT_MAX_STREAMS: 20 }, 200);
    const one = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    for (let i = 0; i < 3; i += 1) expect((await open(living, v4(40), one)).refused).toBeUndefined();
    for (let i = 0; i < 2; i += 1) expect((await open(dying, v4(40), one)).refused).toBeUndefined();
    expect((await open(living, v4(40), one)).refused?.code).toBe('rate_limited');
    // The dying process stops refreshing (as if killed); its two slots expire, the living one's three stay.
    await dyingSlots.onApplicationShutdown();
    await sleep(1_500);
    const after = await Promise.all(Array.from({ length: 5 }, () => open(living, v4(40), one)));
    expect(after.filter((t) => !t.refused)).toHaveLength(2);
    living.beforeApplicationShutdown();
    dying.beforeApplicationShutdown();
  });

  it('Redis down: a new stream is refused with 503 unavailable and Retry-After (fails closed), nothing written', async () => {
    const nowhere = new StreamService(
      repo,
      notifier,
      await streamSlots({ VISITOR_STREAMS_PER_ADDRESS: 50, VISITOR_STREAMS_PER_ACCOUNT: 50 }, undefined, 'redis://127.0.0.1:9'),
      logger,
      { CHAT_MAX_STREAMS: 20 },
      200,
    );
    const tries = await Promise.all(Array.from({ length: 30 }, () => open(nowhere, v4(50))));
    for (const { refused, response } of tries) {
      expect([refused?.getStatus(), refused?.code, refused?.headers['retry-after']]).toEqual([503, 'unavailable', '10']);
      expect(response.status).toBe(0);
    }
    expect(nowhere.openStreams).toBe(0);
  });
});
