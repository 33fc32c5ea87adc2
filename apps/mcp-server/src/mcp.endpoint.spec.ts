import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, JSONRPCRequest, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { GatewayContext } from '@svc/contracts';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExchangeTransport } from './exchange.transport';
import { invalidParams, readPost } from './mcp.endpoint';

const HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
};
const call = (id: string | number, name: string): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});
const caller = (name: string): GatewayContext => ({
  account: { id: `id-${name}`, name, plan: 'scale' },
  keyId: `key-${name}`,
  requestId: `req-${name}`,
});

describe('readPost: the Streamable HTTP rules of a POST', () => {
  it('gives the requests of a message or a batch, leaving notifications out', () => {
    expect(readPost(HEADERS, call(1, 'a'))).toEqual([call(1, 'a')]);
    const batch = [call(1, 'a'), { jsonrpc: '2.0', method: 'notifications/initialized' }, call('x', 'b')];
    expect(readPost(HEADERS, batch)).toEqual([call(1, 'a'), call('x', 'b')]);
  });

  it('202 with nothing to answer when the POST holds only notifications or responses', () => {
    expect(readPost(HEADERS, { jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ status: 202 });
    expect(readPost(HEADERS, [{ jsonrpc: '2.0', id: 3, result: {} }])).toEqual({ status: 202 });
  });

  it('refuses as the SDK transport does: 406, 415, 400 with a JSON-RPC error and no id', () => {
    const refused = (status: number, code: number, message: string | RegExp) => ({
      status,
      body: { jsonrpc: '2.0', id: null, error: { code, message: typeof message === 'string' ? message : expect.stringMatching(message) } },
    });
    expect(readPost({ ...HEADERS, accept: 'application/json' }, call(1, 'a'))).toEqual(refused(406, -32000, /^Not Acceptable/));
    expect(readPost({ ...HEADERS, 'content-type': 'text/plain; a=application/json' }, call(1, 'a'))).toEqual(
      refused(415, -32000, /^Unsupported Media Type/),
    );
    expect(readPost(HEADERS, undefined)).toEqual(refused(400, -32700, 'Parse error: Invalid JSON'));
    expect(readPost(HEADERS, { id: 1, method: 'tools/list' })).toEqual(refused(400, -32700, 'Parse error: Invalid JSON-RPC message'));
    expect(
      readPost(
        HEADERS,
        Array.from({ length: 101 }, (_, i) => call(i, 'a')),
      ),
    ).toEqual(refused(400, -32600, /Batch must not exceed 100/));
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    expect(readPost(HEADERS, [initialize, call(2, 'a')])).toEqual(
      refused(400, -32600, 'Invalid Request: Only one initialization request is allowed'),
    );
    expect(readPost({ ...HEADERS, 'mcp-protocol-version': '2020-01-01' }, call(1, 'a'))).toEqual(
      refused(400, -32000, /Unsupported protocol version: 2020-01-01/),
    );
    // initialize names its revision in its params: the header is not read.
    expect(readPost({ ...HEADERS, 'mcp-protocol-version': '2020-01-01' }, initialize)).toEqual([initialize]);
  });
});

describe("invalidParams: params that do not fit the method are -32602, not the SDK's internal error", () => {
  it.each([false, [], 'x', { name: 7 }, { name: 'whoami', arguments: [1] }])('tools/call with params %j', (params) => {
    const request = { jsonrpc: '2.0', id: 3, method: 'tools/call', params } as unknown as JSONRPCRequest;
    expect(invalidParams(request)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) },
    });
  });

  it('lets a well-formed call and methods it does not know pass', () => {
    expect(invalidParams(call(1, 'whoami'))).toBeUndefined();
    expect(invalidParams({ jsonrpc: '2.0', id: 1, method: 'no/such', params: {} })).toBeUndefined();
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'takes method %s for an unknown method, not a key',
    (method) => {
      expect(invalidParams({ jsonrpc: '2.0', id: 1, method })).toBeUndefined();
      expect(invalidParams({ jsonrpc: '2.0', id: 1, method, params: {} })).toBeUndefined();
    },
  );
});

describe('ExchangeTransport: one SDK server for every POST', () => {
  let transport: ExchangeTransport;

  beforeEach(async () => {
    transport = new ExchangeTransport();
    const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {}, logging: {} } });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const who = transport.callerOf(extra.requestId);
      // A tool named "slow" answers after one named later: the answers cross.
      if (request.params.name === 'slow') await sleep(30);
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'working' } });
      return { content: [{ type: 'text', text: `${request.params.name} for ${who.account.name}` }] };
    });
    await server.connect(transport);
  });

  it('answers each client under its own ids, for its own caller, when clients use the same ids at once', async () => {
    const [first, second] = await Promise.all([
      transport.exchange([call(1, 'slow')], caller('Alpha')),
      transport.exchange([call(1, 'fast')], caller('Beta')),
    ]);
    expect(first).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'slow for Alpha' }] } }]);
    expect(second).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'fast for Beta' }] } }]);
  });

  it("answers a batch in its order, an unknown method with the JSON-RPC error, each under the client's id", async () => {
    const answers = await transport.exchange(
      [call('a', 'slow'), { jsonrpc: '2.0', id: 'b', method: 'resources/list' }, call(7, 'fast')],
      caller('Alpha'),
    );
    expect(answers.map((answer) => answer.id)).toEqual(['a', 'b', 7]);
    expect(answers[0]).toMatchObject({ result: { content: [{ text: 'slow for Alpha' }] } });
    expect(answers[1]).toMatchObject({ error: { code: -32601 } });
    expect(answers[2]).toMatchObject({ result: { content: [{ text: 'fast for Alpha' }] } });
  });

  it('answers methods named like Object.prototype properties as unknown methods (-32601)', async () => {
    const methods = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    const answers = await transport.exchange(
      methods.map((method, id) => ({ jsonrpc: '2.0', id, method })),
      caller('Alpha'),
    );
    expect(answers).toEqual(methods.map((_, id) => ({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } })));
  });

  it('knows a caller only while its request is in flight', async () => {
    await transport.exchange([call(1, 'fast')], caller('Alpha'));
    expect(() => transport.callerOf(1)).toThrow('no request 1 in flight');
  });
});
