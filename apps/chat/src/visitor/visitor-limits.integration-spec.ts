import { createDataSource, migrate } from '@svc/persistence';
import { ApiError } from '@svc/platform';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { newVisitorToken, visitorTokenHash } from '../conversations/visitor-token';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from '../migrations';
import { VISITOR_ACTIONS_PER_HOUR, VisitorAction, VisitorLimits } from './visitor-limits';

describe('VisitorLimits (real PostgreSQL): per conversation, exact under concurrency and across replicas', () => {
  let db: TestDatabase;
  /** Two chat replicas: each its own pool. */
  let replicas: DataSource[];
  let repo: ConversationsRepository;
  const account = randomUUID();
  const newConversation = () => repo.create(account, visitorTokenHash(newVisitorToken()), 'en', null);
  const outcome = (attempt: Promise<void>) =>
    attempt.then(
      () => 'ok',
      (err: ApiError) => `${err.getStatus()} ${err.code} ${err.headers['retry-after']}`,
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    replicas = [];
    for (let i = 0; i < 2; i += 1)
      replicas.push(await createDataSource({ schema: CHAT_SCHEMA, url: db.url, migrations: CHAT_MIGRATIONS, poolSize: 10 }).initialize());
    await migrate(replicas[0]!);
    repo = new ConversationsRepository(replicas[0]!);
  });

  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.destroy();
    await db?.drop();
  });

  it.each(Object.keys(VISITOR_ACTIONS_PER_HOUR) as VisitorAction[])(
    '30 %s requests at once over two replicas: exactly the limit pass, the rest 429 with Retry-After',
    async (action) => {
      const conversation = await newConversation();
      const limits = replicas.map((replica) => new VisitorLimits(replica));
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => outcome(limits[i % 2]!.take(conversation, action))));
      const limit = VISITOR_ACTIONS_PER_HOUR[action];
      expect(results.filter((r) => r === 'ok')).toHaveLength(limit);
      for (const refused of results.filter((r) => r !== 'ok')) expect(refused).toMatch(/^429 rate_limited (3[0-5]\d\d|3600)$/);
      // Another conversation, or another action of this one, has its own count.
      await expect(limits[0]!.take(await newConversation(), action)).resolves.toBeUndefined();
      const other = (Object.keys(VISITOR_ACTIONS_PER_HOUR) as VisitorAction[]).find((a) => a !== action)!;
      await expect(limits[1]!.take(conversation, other)).resolves.toBeUndefined();
    },
  );

  it('a new window counts from zero again', async () => {
    const conversation = await newConversation();
    const limits = new VisitorLimits(replicas[0]!, { consent: 2, booking: 2, handover: 2, phone_code: 2 }, 1_000);
    const first = await Promise.all(Array.from({ length: 5 }, () => outcome(limits.take(conversation, 'consent'))));
    expect(first).toEqual(expect.arrayContaining(['ok', 'ok']));
    expect(first.filter((r) => r === 'ok')).toHaveLength(2);
    expect(first.filter((r) => r !== 'ok')).toEqual(Array(3).fill('429 rate_limited 1'));
    await sleep(1_100);
    const second = await Promise.all(Array.from({ length: 5 }, () => outcome(limits.take(conversation, 'consent'))));
    expect(second.filter((r) => r === 'ok')).toHaveLength(2);
  });
});
