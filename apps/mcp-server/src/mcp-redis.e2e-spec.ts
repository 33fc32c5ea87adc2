import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PrivateRedis, Stack, startPrivateRedis, startStack, waitFor } from '@svc/testing';

/**
 * The gateway's Redis holds the per-key write limits the MCP write tools count in: while it is
 * down a write tool answers `unavailable` (the REST 503's body) and writes nothing; reads go on;
 * when it is back, writes work again.
 */
describe("mcp-server: a write tool while the gateway's Redis is down", () => {
  let redis: PrivateRedis;
  let stack: Stack;
  let mcp: Client;

  const tool = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  const piece = (ref: string) => ({ external_ref: ref, heading: 'Returns', text: 'Returns are free within thirty days of delivery.' });
  /** The REST answer for one piece. */
  const stored = async (ref: string) => {
    const response = await stack.call(`/knowledge?external_ref=${ref}`);
    expect(response.status).toBe(200);
    return (await response.json()) as { items: unknown[] };
  };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startStack(['knowledge-api', 'mcp-server'], { appEnv: { gateway: { REDIS_URL: redis.url } } });
    mcp = new Client({ name: 'e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${stack.account.key}` } },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await stack?.stop();
    await redis?.stop();
  });

  it('answers isError unavailable with when to retry and writes nothing; reads go on; writes work again when Redis is back', async () => {
    expect((await tool('upsert_knowledge_piece', piece('before'))).isError).toBeFalsy();

    await redis.stop();
    const refused = await tool('upsert_knowledge_piece', piece('during'));
    const body = { error: { code: 'unavailable', message: 'The service is temporarily unavailable; retry shortly.' } };
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual(body);
    expect(JSON.parse((refused.content[0] as { text: string }).text)).toEqual(body);
    expect(refused._meta).toEqual({ retry_after_seconds: 1 });
    // The REST API answers the same body for the same write.
    const rest = await stack.call('/knowledge/during', {
      method: 'PUT',
      json: { heading: 'Returns', text: 'Returns are free within thirty days of delivery.' },
    });
    expect(rest.status).toBe(503);
    expect(await rest.json()).toEqual(body);
    expect((await stored('during')).items).toEqual([]);
    const read = await tool('list_knowledge_pieces', { external_ref: 'before' });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual(await stored('before'));
    expect((await stored('before')).items).toHaveLength(1);

    await redis.start();
    await waitFor(
      'MCP writes accepted again',
      async () => ((await tool('upsert_knowledge_piece', piece('during'))).isError ? undefined : true),
      15_000,
    );
    expect((await stored('during')).items).toEqual([expect.objectContaining({ external_ref: 'during', heading: 'Returns' })]);
  });
});
