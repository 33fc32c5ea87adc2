import { WhoamiResponseDto } from '@svc/contracts';
import { queryRows } from '@svc/persistence';
import { ChatVisitor, PrivatePostgres, Stack, startStack, waitFor } from '@svc/testing';

/**
 * New conversations per address are counted in PostgreSQL. The database is a private server this
 * suite stops while a count is in flight (held on the counter's row lock): the new conversation
 * fails closed (503 `unavailable`, in the error shape), no conversation is written, and once the
 * database is back the visitor starts a conversation.
 */
describe('PostgreSQL stopped during a new-conversation limit check (a private server, processes)', () => {
  let server: PrivatePostgres;
  let stack: Stack;
  let widget: string;

  /** The conversations and the counter rows, read once the harness's pool reaches the database again. */
  const counts = (): Promise<{ conversations: number; used: number[] }> =>
    waitFor('the database', async () => {
      try {
        const [row] = await queryRows<{ n: number }>(stack.dataSource, 'SELECT count(*)::int AS n FROM chat.conversations');
        const used = await queryRows<{ used: number }>(stack.dataSource, 'SELECT used FROM chat.new_conversation_counts ORDER BY used');
        return { conversations: row?.n ?? -1, used: used.map((r) => r.used) };
      } catch {
        return undefined;
      }
    });

  beforeAll(async () => {
    server = await PrivatePostgres.create();
    stack = await startStack(['contacts-api', 'chat'], {
      databaseServerUrl: server.serverUrl,
      env: { VISITOR_CONVERSATIONS_PER_ADDRESS: '3' },
    });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
  }, 120_000);

  afterAll(async () => {
    await server?.destroyAfter(stack);
  }, 120_000);

  it('fails closed with 503 unavailable, writes nothing, and the visitor starts a conversation once the database is back', async () => {
    expect((await new ChatVisitor(stack.gateway.url).session({ widget })).status).toBe(201);
    expect(await counts()).toEqual({ conversations: 1, used: [1] });

    // Another session holds the counter's row: the next count waits on it, in the middle of the check.
    const holder = stack.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await queryRows(holder, 'SELECT 1 AS one FROM chat.new_conversation_counts FOR UPDATE');
    const refused = new ChatVisitor(stack.gateway.url).call('/sessions', { method: 'POST', json: { widget }, auth: false });
    // Watched from another session: pg_stat_activity is read once per transaction.
    await waitFor('the count waiting on the row lock', async () => {
      const [row] = await queryRows<{ n: number }>(
        stack.dataSource,
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%new_conversation_counts%'`,
      );
      return (row?.n ?? 0) > 0 ? true : undefined;
    });
    await server.stop();
    const answer = await refused;
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    await holder.release().catch(() => undefined);

    await server.start();
    // Nothing half-written: no conversation. The count is one statement, whole or not at all: the shutdown ends the
    // holder's session and the waiting count's in either order, so the count may have committed just before its own.
    const interrupted = await counts();
    expect(interrupted.conversations).toBe(1);
    expect([[1], [2]]).toContainEqual(interrupted.used);
    // The pools reconnect; a session refused meanwhile (503) is asked for again, as the widget does.
    const visitor = new ChatVisitor(stack.gateway.url);
    const status = await waitFor('a new conversation after the restart', async () => {
      const { status } = await visitor.session({ widget }).catch(() => ({ status: 0 }));
      return status === 503 || status === 0 ? undefined : status;
    });
    expect(status).toBe(201);
    expect(await counts()).toEqual({ conversations: 2, used: [(interrupted.used[0] as number) + 1] });
  }, 150_000);
});
