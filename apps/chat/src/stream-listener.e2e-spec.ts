import { GatewayContext, WhoamiResponseDto } from '@svc/contracts';
import { ChatClient } from '@svc/internal-clients';
import { queryRows } from '@svc/persistence';
import { createLogger, InternalAuth } from '@svc/platform';
import { ChatStream, ChatVisitor, InboxEvents, Stack, startStack, waitFor } from '@svc/testing';
import { Client } from 'pg';

/**
 * The chat's live streams (a visitor's `GET /chat/v1/stream` and the console's inbox stream) are
 * woken by one LISTEN connection per process (application_name `chat-streams`). Its backend is
 * terminated while both streams are open, and the suite's database refuses new connections for a
 * while (ALLOW_CONNECTIONS false: the apps' open connections go on), so that the listener stays
 * down: a message written meanwhile still reaches both streams (they poll while the listener is
 * down), and once the listener is back, live wake-ups work again (a stream polls only while the
 * listener is down).
 */
describe('chat streams when their LISTEN connection is killed (processes, real PostgreSQL)', () => {
  let stack: Stack;
  let chat: ChatClient;
  let widget: string;

  /** The listener's backend in the suite's database once its LISTEN has run (it is then idle). */
  const listener = async (): Promise<number | undefined> => {
    const rows = await queryRows<{ pid: number }>(
      stack.dataSource,
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'chat-streams' AND datname = current_database() AND state = 'idle' AND query LIKE 'LISTEN%'",
    );
    return rows.length === 1 ? rows[0]!.pid : undefined;
  };
  /** A statement on the server's `postgres` database (a database cannot refuse connections to itself from inside). */
  const onServer = async (work: (client: Client) => Promise<unknown>): Promise<void> => {
    const url = new URL(stack.env['DATABASE_URL']!);
    url.pathname = '/postgres';
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  };
  const context = (): GatewayContext => ({
    account: { id: stack.account.accountId, name: '', plan: 'scale' },
    keyId: 'test',
    requestId: `req-${Date.now()}`,
  });

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'knowledge-api', 'chat'], { appEnv: { chat: { VISITOR_MESSAGES_PER_MINUTE: '100' } } });
    chat = new ChatClient({
      url: stack.services['chat']!.internalUrl,
      auth: InternalAuth.fromEnv('console', stack.env),
      timeoutMs: 10_000,
      logger: createLogger('test', 'silent'),
    });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('a message written while the listener is down reaches the visitor and inbox streams; after it reconnects, wake-ups are live again', async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    await visitor.session({ widget });
    const opening = await visitor.send('Hello, is anybody there?');
    const abort = new AbortController();
    let stream: ChatStream | undefined;
    try {
      stream = await visitor.stream();
      const inbox = new InboxEvents(await chat.openInboxStream(context(), undefined, abort.signal));
      await stream.waitForMessage((m) => m.id === opening.id);
      await inbox.waitFor((e) => e.last_message_id >= opening.id);

      const before = await waitFor('the stream listener', listener);
      // Its reconnection fails until the end of the outage (connections already open go on).
      const [{ name }] = await queryRows<{ name: string }>(stack.dataSource, 'SELECT current_database() AS name');
      const allowConnections = (allow: boolean) =>
        // eslint-disable-next-line no-restricted-syntax -- a statement on the server's own database, outside the suite's data source
        onServer((server) => server.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS ${allow}`));
      await allowConnections(false);
      try {
        const terminated = await queryRows<{ done: boolean }>(
          stack.dataSource,
          "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = 'chat-streams' AND datname = current_database()",
        );
        expect(terminated).toEqual([{ done: true }]);
        await waitFor('the listener to fail to reconnect', async () =>
          /stream listener could not connect/.test(stack.services['chat']!.output()) ? true : undefined,
        );

        // Only the streams' polling can bring this one: nobody listens.
        const meanwhile = await visitor.send('Are you still there?');
        await stream.waitForMessage((m) => m.id === meanwhile.id);
        await inbox.waitFor((e) => e.last_message_id >= meanwhile.id);
        expect(await listener()).toBeUndefined();
      } finally {
        await allowConnections(true);
      }

      // Back (a new backend, LISTEN done): the streams no longer poll, so what arrives now was woken by NOTIFY.
      const after = await waitFor('the stream listener to reconnect', async () => {
        const pid = await listener();
        return pid !== undefined && pid !== before ? pid : undefined;
      });
      expect(after).not.toBe(before);
      const live = await visitor.send('One more question, please.');
      await stream.waitForMessage((m) => m.id === live.id);
      await inbox.waitFor((e) => e.last_message_id >= live.id);
      // The listener has been up since (so no stream polled for that last message).
      expect(stack.services['chat']!.output().match(/stream listener lost its connection/g)).toHaveLength(1);
      expect(await listener()).toBe(after);
    } finally {
      abort.abort();
      await stream?.close();
    }
  }, 90_000);
});
