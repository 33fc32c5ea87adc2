import { searchShardOf, WhoamiResponseDto } from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import { ChatVisitor, freePort, RunningApp, Stack, startApp, startStack, TestAccount, waitFor } from '@svc/testing';

/** The chat's answer, from knowledge-api spread over two search shards: each account is searched on its own shard. */
describe("search shards: two knowledge-api replicas, each with half the accounts; the chat asks each account's shard (processes)", () => {
  let stack: Stack;
  let second: RunningApp;
  const ports: number[] = [];
  /** An account on each shard, by shard. */
  const accounts: TestAccount[] = [];
  const piece = { heading: 'Returns and refunds', text: 'You can return any item within 30 days of delivery for a full refund.' };

  beforeAll(async () => {
    ports.push(await freePort(), await freePort());
    const urls = ports.map((port) => `http://127.0.0.1:${port}`).join(',');
    stack = await startStack(['contacts-api', 'knowledge-api', 'events-api', 'chat'], {
      appEnv: {
        'knowledge-api': { SEARCH_SHARD: '0/2', INTERNAL_PORT: String(ports[0]) },
        chat: { KNOWLEDGE_SEARCH_URLS: urls },
      },
    });
    second = await startApp('knowledge-api', { ...stack.env, SEARCH_SHARD: '1/2', INTERNAL_PORT: String(ports[1]) });
    while (accounts.length < 2 || !accounts[0] || !accounts[1]) {
      const account = await stack.newAccount();
      accounts[searchShardOf(account.accountId, 2)] ??= account;
    }
    // Both written through the gateway, which reaches shard 0's replica: shard 1's follows through NOTIFY.
    for (const account of accounts) {
      const put = await stack.call('/knowledge/returns', { method: 'PUT', key: account.key, json: piece });
      expect(put.status).toBe(201);
    }
  }, 300_000);

  afterAll(async () => {
    await second?.stop();
    await stack?.stop();
  });

  /** knowledge-api's search on `port` for the account, signed as the chat. */
  const search = async (port: number | undefined, account: TestAccount) => {
    const context = { account: { id: account.accountId, name: 'Acme', plan: 'scale' as const }, keyId: 'test', requestId: 'shards' };
    const signed = await InternalAuth.fromEnv('chat', stack.env).signReusable('knowledge-api', context);
    return fetch(`http://127.0.0.1:${port}/internal/knowledge/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [GATEWAY_CONTEXT_HEADER]: signed },
      body: JSON.stringify({ question: 'How do I return an item?', lang: 'en' }),
    });
  };

  it("each shard answers its own account's search and refuses the other's with 503", async () => {
    for (const [shard, account] of accounts.entries()) {
      const own = await waitFor(`shard ${shard} to hold the piece`, async () => {
        const response = await search(ports[shard], account);
        const body = (await response.json()) as { results: Array<{ external_ref: string }> };
        return response.status === 200 && body.results.length > 0 ? body : undefined;
      });
      expect(own.results[0]?.external_ref).toBe('returns');
      const other = await search(ports[1 - shard], account);
      expect(other.status).toBe(503);
      expect(((await other.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    }
  });

  it("a visitor of each account gets the assistant's answer from that account's shard", async () => {
    for (const account of accounts) {
      const { widget } = (await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto;
      const visitor = new ChatVisitor(stack.gateway.url);
      expect((await visitor.session({ widget })).status).toBe(201);
      const stream = await visitor.stream();
      await visitor.send('How do I return an item?');
      const answer = await stream.waitForMessage((m) => m.author === 'assistant', 20_000);
      await stream.close();
      expect(answer.citation?.external_ref).toBe('returns');
    }
  }, 60_000);
});
