import { createDataSource, migrate } from '@svc/persistence';
import { ApiError, createLogger } from '@svc/platform';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { newVisitorToken, visitorTokenHash } from '../conversations/visitor-token';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from '../migrations';
import { ConversationNotifier } from './conversation-notifier';
import { StreamService } from './stream.service';

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
  const account = randomUUID();
  const logger = createLogger('test', 'silent');

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createDataSource({ schema: CHAT_SCHEMA, url: db.url, migrations: CHAT_MIGRATIONS, poolSize: 4 }).initialize();
    await migrate(dataSource);
    repo = new ConversationsRepository(dataSource);
    notifier = new ConversationNotifier(db.url, logger);
    await notifier.onModuleInit();
    streams = new StreamService(repo, notifier, logger, { VISITOR_STREAMS_PER_ADDRESS: 8, CHAT_MAX_STREAMS: 20 }, 200);
  });

  afterAll(async () => {
    await notifier?.onApplicationShutdown();
    await dataSource?.destroy();
    await db?.drop();
  });

  it('sends the messages after the given id and the state, then each commit live, and pings', async () => {
    const conversation = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    for (const text of ['one', 'two', 'three'])
      await repo.transaction((tx) => tx.addMessage(account, conversation.id, { author: 'customer', text }));
    const response = new FakeResponse();
    streams.serve(conversation, '203.0.113.1', 1, response as unknown as ServerResponse, { 'x-request-id': 'r-1' });
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
    streams.serve(conversation, '203.0.113.1', 0, response as unknown as ServerResponse, {});
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
    streams.serve(mine, '203.0.113.1', 0, response as unknown as ServerResponse, {});
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
    streams.serve(one, '203.0.113.1', 0, tabs[0] as unknown as ServerResponse, {});
    streams.serve(one, '203.0.113.1', 0, tabs[1] as unknown as ServerResponse, {});
    streams.serve(two, '203.0.113.1', 0, tabs[2] as unknown as ServerResponse, {});
    expect([streams.openStreams, streams.openConversations]).toEqual([3, 2]);
    tabs[0]!.emit('close');
    expect([streams.openStreams, streams.openConversations]).toEqual([2, 2]);
    tabs[1]!.emit('close');
    expect([streams.openStreams, streams.openConversations]).toEqual([1, 1]);
    tabs[2]!.emit('close');
    expect([streams.openStreams, streams.openConversations]).toEqual([0, 0]);
  });

  it('refuses streams past 5 per token (429), past the address limit (429) and past the process cap (503), each with Retry-After; a close frees a slot', async () => {
    const open = async (address: string, row?: ConversationRow) => {
      const conversation = row ?? (await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null));
      const response = new FakeResponse();
      try {
        streams.serve(conversation, address, 0, response as unknown as ServerResponse, {});
        return { response, refused: undefined };
      } catch (err) {
        return { response, refused: err as ApiError };
      }
    };
    const one = await repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
    const tries = await Promise.all(Array.from({ length: 20 }, () => open('203.0.113.9', one)));
    const opened = tries.filter((t) => !t.refused);
    expect(opened).toHaveLength(5);
    for (const { refused, response } of tries.filter((t) => t.refused)) {
      expect(refused?.getStatus()).toBe(429);
      expect(refused?.code).toBe('rate_limited');
      expect(refused?.headers['retry-after']).toBe('10');
      expect(response.status).toBe(0);
    }
    opened[0]!.response.emit('close');
    expect((await open('203.0.113.9', one)).refused).toBeUndefined();

    // The address: 8 streams (5 on `one`, 3 more on other tokens); an IPv6 /64 counts as one address.
    for (let i = 0; i < 3; i += 1) expect((await open('203.0.113.9')).refused).toBeUndefined();
    expect((await open('203.0.113.9')).refused?.getStatus()).toBe(429);
    for (let i = 0; i < 8; i += 1) expect((await open(`2001:db8:1:2::${i + 1}`)).refused).toBeUndefined();
    expect((await open('2001:db8:1:2::ff')).refused?.code).toBe('rate_limited');

    // The process: 20 in all, then 503 for anyone.
    for (let i = 0; i < 4; i += 1) expect((await open('198.51.100.1')).refused).toBeUndefined();
    const full = (await open('198.51.100.2')).refused;
    expect(full?.getStatus()).toBe(503);
    expect(full?.code).toBe('unavailable');
    expect(full?.headers['retry-after']).toBe('10');
    expect(streams.openStreams).toBe(20);
    streams.beforeApplicationShutdown();
    expect(streams.openStreams).toBe(0);
    expect((await open('198.51.100.2')).refused).toBeUndefined();
    streams.beforeApplicationShutdown();
  });
});
