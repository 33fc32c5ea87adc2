import { WhoamiResponseDto } from '@svc/contracts';
import { queryOne } from '@svc/persistence';
import { ChatVisitor, PrivatePostgres, Stack, startStack } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The chat, contacts-api and knowledge-api run their hot statements as named prepared statements,
 * which live on the connections that prepared them. Their database is a private PostgreSQL server
 * this suite restarts: every connection (and every statement prepared on it) is gone, and the next
 * question must still be taken and answered from the knowledge, on new connections.
 */
describe('PostgreSQL restarted under the chat (a private server, processes)', () => {
  let server: PrivatePostgres;
  let stack: Stack;
  let widget: string;

  beforeAll(async () => {
    server = await PrivatePostgres.create();
    stack = await startStack(['contacts-api', 'knowledge-api', 'chat'], { databaseServerUrl: server.serverUrl });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    const piece = await stack.call('/knowledge/returns', {
      method: 'PUT',
      json: { heading: 'Returns and refunds', text: 'You can return any item within 30 days of delivery for a full refund.' },
    });
    expect(piece.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await server?.start().catch(() => undefined); // a failed test may have left it stopped
    await stack?.stop();
    await server?.destroy();
  }, 120_000);

  it('a question after the restart is taken and answered from the knowledge, as the one before it was', async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    await visitor.session({ widget });
    const stream = await visitor.stream();
    // Several answers first: each statement is prepared on the pools' connections, past PostgreSQL's five custom plans.
    for (let i = 0; i < 6; i += 1) {
      await visitor.send('Can I return my order?');
      const answer = await stream.waitForMessage((m) => m.author === 'assistant' && m.id > 2 * i, 30_000);
      expect(answer.citation?.external_ref).toBe('returns');
    }

    const started = async () => (await queryOne<{ at: string }>(stack.dataSource, 'SELECT pg_postmaster_start_time()::text AS at'))?.at;
    const before = await started();
    await server.stop();
    await sleep(2_000);
    await server.start();

    // The pools find their connections dead and open new ones; a send refused meanwhile (503) is sent again.
    let question: { id: number } | undefined;
    for (const deadline = Date.now() + 30_000; !question && Date.now() < deadline;) {
      question = await visitor.send('How do I get a refund?').catch(() => undefined);
      if (!question) await sleep(500);
    }
    expect(question).toBeDefined();
    const answer = await stream.waitForMessage((m) => m.author === 'assistant' && m.id > (question?.id ?? 0), 30_000);
    expect(answer.citation?.external_ref).toBe('returns');
    expect(await started()).not.toBe(before); // it was the restarted server that answered
    await stream.close();
  }, 150_000);
});
