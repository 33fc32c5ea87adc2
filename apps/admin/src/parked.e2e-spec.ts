import { PublicEvent } from '@svc/contracts';
import { execute } from '@svc/persistence';
import { runAdmin, suitePipeline, waitFor } from '@svc/testing';

describe('admin parked list / replay (built apps, real RabbitMQ and PostgreSQL)', () => {
  const pipeline = suitePipeline();

  const admin = (...args: string[]) => {
    const { stack } = pipeline;
    const result = runAdmin(args, {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: stack.db.url,
      RABBITMQ_URL: stack.env['RABBITMQ_URL']!,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const json = (stdout: string) => {
    expect(stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(stdout);
  };
  const feed = async (key: string): Promise<PublicEvent[]> =>
    ((await (await pipeline.stack.call('/events?limit=200', { key })).json()) as { events: PublicEvent[] }).events;
  const parkedCount = (): number | null =>
    (json(admin('parked', 'list').stdout).queues as Array<{ queue: string; messages: number | null }>).find(
      (q) => q.queue === 'events-api.domain',
    )?.messages ?? null;

  it('lists a message the database refused, shows where it belongs and why (no personal data), and replays it once fixed', async () => {
    const account = await pipeline.stack.newAccount('Parked');
    // A database that refuses one kind: the kind of bug a deploy fixes.
    await execute(
      pipeline.stack.dataSource,
      `ALTER TABLE events.events ADD CONSTRAINT parked_spec_refuses_sent CHECK (kind <> 'message.sent') NOT VALID`,
    );
    const refused = await pipeline.producer.emit('message.sent', account.accountId, 1);
    await pipeline.producer.emit('message.received', account.accountId, 2);

    await waitFor('the refused message in the parking queue', async () => (parkedCount() === 1 ? true : undefined));
    const listed = json(admin('parked', 'list').stdout);
    expect(listed.queues).toEqual(
      expect.arrayContaining([
        { queue: 'events-api.domain', parking_queue: 'events-api.domain.parked', messages: 1 },
        { queue: 'webhook-dispatcher.events', parking_queue: 'webhook-dispatcher.events.parked', messages: null },
      ]),
    );
    expect((await feed(account.key)).map((e) => e.event)).toEqual(['message.received']); // its neighbour went on

    const shown = admin('parked', 'list', '--queue', 'events-api.domain.parked', '--show', '5');
    expect(shown.status).toBe(0);
    expect(json(shown.stdout)).toEqual({
      queue: 'events-api.domain',
      parking_queue: 'events-api.domain.parked',
      messages: 1,
      shown: [
        {
          routing_key: 'message.sent',
          message_id: refused.id,
          kind: 'message.sent',
          account_id: account.accountId,
          reason: expect.stringContaining('SQLSTATE 23514'),
          first_death_at: expect.any(String),
          parked_at: expect.any(String),
        },
      ],
    });
    for (const personal of ['Ada Lovelace', 'ada@example.com', (refused.data as { message: { text: string } }).message.text])
      expect(shown.stdout).not.toContain(personal);
    expect(parkedCount()).toBe(1); // showing leaves the message where it is

    await execute(pipeline.stack.dataSource, 'ALTER TABLE events.events DROP CONSTRAINT parked_spec_refuses_sent');
    const replayed = admin('parked', 'replay', '--queue', 'events-api.domain');
    expect(replayed.status).toBe(0);
    expect(json(replayed.stdout)).toEqual({ queue: 'events-api.domain', replayed: 1 });
    const events = await waitFor('the replayed event in the feed', async () => {
      const all = await feed(account.key);
      return all.length === 2 ? all : undefined;
    });
    expect(events.map((e) => e.event).sort()).toEqual(['message.received', 'message.sent']);
    expect(parkedCount()).toBe(0);
  });

  it.each([
    [['parked', 'replay', '--queue', 'nope.domain'], 1, /no parking queue nope\.domain\.parked/],
    [['parked', 'replay'], 2, /--queue/],
    [['parked', 'list', '--show', '3'], 2, /--show needs --queue/],
    [['parked', 'list', '--queue', 'events-api.domain', '--show', '0'], 2, /whole number above 0/],
  ])('%j → a message on stderr, nothing on stdout, exit %i', (args, status, message) => {
    const result = admin(...args);
    expect(result.status).toBe(status);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});
