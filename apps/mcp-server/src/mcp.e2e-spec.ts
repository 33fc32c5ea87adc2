import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { AccountsRepository, AccountsService } from '@svc/accounts';
import { ErrorBody, PublicEvent, TaughtItem, WhoamiResponseDto } from '@svc/contracts';
import { queryRows } from '@svc/persistence';
import { ChatVisitor, Stack, startStack, TestAccount } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import { IncomingMessage, request as httpRequest } from 'node:http';

const SERVICES = ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat', 'mcp-server'];
const PARITY_TOOLS = [
  'whoami',
  'get_contact',
  'find_contacts',
  'upsert_contact',
  'delete_contact',
  'create_identity_pass',
  'list_knowledge_pieces',
  'upsert_knowledge_piece',
  'bulk_upsert_knowledge_pieces',
  'delete_knowledge_piece',
  'list_events',
  'list_webhooks',
  'register_webhook',
  'delete_webhook',
];
const CHAT_TOOLS = [
  'list_conversations',
  'get_conversation',
  'send_reply',
  'send_whatsapp_template',
  'list_consents',
  'withdraw_consent',
  'search_knowledge',
  'teach_assistant',
  'list_bookings',
  'create_booking',
  'update_booking',
  'get_analytics',
];
const READ_ONLY = new Set([
  'whoami',
  'get_contact',
  'find_contacts',
  'list_knowledge_pieces',
  'list_events',
  'list_webhooks',
  'list_conversations',
  'get_conversation',
  'list_consents',
  'search_knowledge',
  'list_bookings',
  'get_analytics',
]);
const DESTRUCTIVE = new Set(['delete_contact', 'delete_knowledge_piece', 'delete_webhook', 'update_booking', 'withdraw_consent']);
const WEBHOOK_URL = 'https://93.184.215.14/svc/webhooks';
const PIECE_TEXT = 'Orders ship within two working days from our warehouse.';
const INITIALIZE = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'e2e', version: '1.0.0' } },
});

describe('mcp-server: MCP over Streamable HTTP through the gateway (official SDK client, real services)', () => {
  let stack: Stack;
  let account: TestAccount;
  let mcp: Client;

  const mcpUrl = () => new URL(`${stack.gateway.url}/mcp`);

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    return client;
  }

  async function tool(name: string, args: Record<string, unknown> = {}, client = mcp): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  /** The REST answer: status and body (undefined for 204). */
  async function rest(
    path: string,
    init: { method?: string; json?: unknown; key?: string } = {},
  ): Promise<{ status: number; body: unknown }> {
    const response = await stack.call(path, { method: init.method, json: init.json, key: init.key ?? account.key });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** A raw JSON-RPC POST to /mcp, for what the SDK client does not show (statuses, headers). */
  function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(mcpUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  }

  /** The tool's result is exactly the REST body: structured, and the same JSON as text. */
  function expectRestBody(result: CallToolResult, body: unknown): void {
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(body);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(body);
  }

  function expectErrorBody(result: CallToolResult, body: unknown): void {
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(body);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(body);
  }

  beforeAll(async () => {
    stack = await startStack(SERVICES, { env: { OUTBOX_POLL_INTERVAL_MS: '200' } });
    account = await stack.newAccount('Agents Inc');
    mcp = await connect(account.key);
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await stack?.stop();
  });

  it('lists the API tools with titles, input and output schemas from the REST DTOs, and annotations', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...PARITY_TOOLS, ...CHAT_TOOLS].sort());
    for (const t of tools) {
      expect(t.title).toEqual(expect.any(String));
      expect(t.description?.length).toBeGreaterThan(30);
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations).toMatchObject({ readOnlyHint: READ_ONLY.has(t.name), openWorldHint: false });
      expect(t.annotations?.destructiveHint).toBe(DESTRUCTIVE.has(t.name));
      if (PARITY_TOOLS.includes(t.name) && !t.name.startsWith('delete_')) expect(t.outputSchema?.type).toBe('object');
    }
    // The chat tools' inputs come from the back-office DTOs; the tool sets created_by itself.
    const booking = tools.find((t) => t.name === 'create_booking');
    expect(booking?.inputSchema.required).toEqual(expect.arrayContaining(['conversation_id', 'starts_at']));
    expect(booking?.inputSchema.properties).not.toHaveProperty('created_by');
    expect(tools.find((t) => t.name === 'update_booking')?.inputSchema.properties?.['status']).toMatchObject({
      enum: ['confirmed', 'declined', 'cancelled'],
    });
    const upsert = tools.find((t) => t.name === 'upsert_contact');
    // The UpsertContactDto's own rules, as the OpenAPI document has them.
    expect(upsert?.inputSchema.required).toEqual(['ref']);
    expect(upsert?.inputSchema.properties?.['phone']).toMatchObject({ pattern: '^\\+[1-9][0-9]{1,14}$' });
    expect(upsert?.inputSchema.properties?.['consents']).toMatchObject({
      type: 'array',
      items: { type: 'object', required: expect.arrayContaining(['purpose', 'text', 'given_at', 'source']) },
    });
    const piece = tools.find((t) => t.name === 'upsert_knowledge_piece');
    expect(piece?.inputSchema.required).toEqual(expect.arrayContaining(['external_ref', 'heading', 'text']));
    expect(piece?.annotations).toMatchObject({ idempotentHint: true, readOnlyHint: false });
  });

  it('serves the current protocol revision and the previous one; GET and DELETE are 405 (stateless)', async () => {
    for (const version of [LATEST_PROTOCOL_VERSION, '2025-06-18']) {
      const response = await post(INITIALIZE(version), { authorization: `Bearer ${account.key}` });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: { protocolVersion: string; capabilities: object } };
      expect(body.result.protocolVersion).toBe(version);
      expect(body.result.capabilities).toHaveProperty('tools');
      expect(response.headers.get('mcp-session-id')).toBeNull();
    }
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(mcpUrl(), { method, headers: { authorization: `Bearer ${account.key}`, accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(((await response.json()) as ErrorBody).error.code).toBe('method_not_allowed');
    }
  });

  it('a method named like an Object.prototype property is an unknown method (-32601 with 200), alone or in a batch, never a 500', async () => {
    const auth = { authorization: `Bearer ${account.key}`, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const methods = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    for (const method of methods) {
      const response = await post({ jsonrpc: '2.0', id: 1, method }, auth);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    }
    const batch = await post(
      [...methods.map((method, id) => ({ jsonrpc: '2.0', id, method, params: {} })), { jsonrpc: '2.0', id: 'list', method: 'tools/list' }],
      auth,
    );
    expect(batch.status).toBe(200);
    const answers = (await batch.json()) as Array<{ id: number | string; error?: { code: number }; result?: { tools: unknown[] } }>;
    expect(answers.filter((answer) => answer.error?.code === -32601).map((answer) => answer.id)).toEqual(methods.map((_, id) => id));
    expect(answers.find((answer) => answer.id === 'list')?.result?.tools.length).toBeGreaterThan(0);
  });

  it('401 without a key or with a wrong one, 402 for a Starter key, as HTTP statuses with the error body', async () => {
    const initialize = INITIALIZE(LATEST_PROTOCOL_VERSION);
    const none = await post(initialize);
    expect(none.status).toBe(401);
    expect(((await none.json()) as ErrorBody).error.code).toBe('unauthorized');
    const wrong = await post(initialize, { authorization: `Bearer svc_cust_${'x'.repeat(43)}` });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as ErrorBody).error.code).toBe('unauthorized');
    await expect(connect(`svc_cust_${'y'.repeat(43)}`)).rejects.toThrow(/401|unauthorized/i);

    const starter = await new AccountsService(new AccountsRepository(stack.dataSource)).createAccount('Small shop', 'starter');
    const refused = await post(initialize, { authorization: `Bearer ${starter.apiKey}` });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as ErrorBody).error.code).toBe('plan_required');
    await expect(connect(starter.apiKey)).rejects.toThrow(/402|plan/i);
  });

  it('refuses other origins and other Host names (DNS rebinding): 403 forbidden_origin', async () => {
    const initialize = INITIALIZE(LATEST_PROTOCOL_VERSION);
    const page = await post(initialize, { authorization: `Bearer ${account.key}`, origin: 'https://evil.example' });
    expect(page.status).toBe(403);
    expect(((await page.json()) as ErrorBody).error.code).toBe('forbidden_origin');
    const own = await post(initialize, { authorization: `Bearer ${account.key}`, origin: 'http://localhost:3000' });
    expect(own.status).toBe(200);

    const rebound = httpRequest({
      host: '127.0.0.1',
      port: stack.gateway.port,
      path: '/mcp',
      method: 'POST',
      headers: {
        host: `attacker.example:${stack.gateway.port}`,
        authorization: `Bearer ${account.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    rebound.end(JSON.stringify(initialize));
    const [response] = (await once(rebound, 'response')) as [IncomingMessage];
    let text = '';
    for await (const chunk of response) text += String(chunk);
    expect(response.statusCode).toBe(403);
    expect((JSON.parse(text) as ErrorBody).error.code).toBe('forbidden_origin');
  });

  it('whoami, customers and passes: each result is the REST answer for the same key and data', async () => {
    expectRestBody(await tool('whoami'), (await rest('/whoami')).body);

    const created = await tool('upsert_contact', {
      ref: 'cust 1/ä',
      name: 'Ada Lovelace',
      email: 'Ada@Example.com',
      consents: [
        { purpose: 'future_email', text: 'Send me offers by email.', given_at: '2026-11-21T10:04:05.123456Z', source: 'signup-form' },
      ],
    });
    const stored = await rest(`/contacts/${encodeURIComponent('cust 1/ä')}`);
    expect(stored.status).toBe(200);
    expectRestBody(created, stored.body);
    expectRestBody(await tool('get_contact', { ref: 'cust 1/ä' }), stored.body);
    expectRestBody(await tool('find_contacts', { email: 'ada@example.com' }), (await rest('/contacts?email=ada%40example.com')).body);

    const updated = await tool('upsert_contact', { ref: 'cust 1/ä', phone: '+447700900123' });
    expectRestBody(updated, (await rest(`/contacts/${encodeURIComponent('cust 1/ä')}`)).body);
    expect(updated.structuredContent).toMatchObject({ name: 'Ada Lovelace', phone: '+447700900123' });

    const pass = await tool('create_identity_pass', { ref: 'cust 1/ä' });
    expect(pass.isError).toBeFalsy();
    const restPass = await rest(`/contacts/${encodeURIComponent('cust 1/ä')}/identity`, { method: 'POST' });
    expect(restPass.status).toBe(201);
    expect(Object.keys(pass.structuredContent ?? {})).toEqual(Object.keys(restPass.body as object));
    expect(pass.structuredContent).toEqual({ token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expires_at: expect.any(String) });

    const erased = await tool('delete_contact', { ref: 'cust 1/ä' });
    expect(erased.isError).toBeFalsy();
    expect(erased.structuredContent).toBeUndefined();
    const gone = await rest(`/contacts/${encodeURIComponent('cust 1/ä')}`);
    expect(gone.status).toBe(404);
    expectErrorBody(await tool('get_contact', { ref: 'cust 1/ä' }), gone.body);
    expectErrorBody(
      await tool('delete_contact', { ref: 'cust 1/ä' }),
      (await rest(`/contacts/${encodeURIComponent('cust 1/ä')}`, { method: 'DELETE' })).body,
    );
    expectErrorBody(
      await tool('create_identity_pass', { ref: 'nobody' }),
      (await rest('/contacts/nobody/identity', { method: 'POST' })).body,
    );
  });

  it('knowledge, events and webhooks: each result is the REST answer', async () => {
    const piece = await tool('upsert_knowledge_piece', {
      external_ref: 'faq-shipping',
      heading: 'Shipping',
      text: PIECE_TEXT,
      url: 'https://shop.example/shipping',
    });
    expect(piece.isError).toBeFalsy();
    const listedOne = (await rest('/knowledge?external_ref=faq-shipping')).body as { items: unknown[] };
    expectRestBody(piece, listedOne.items[0]);
    expectRestBody(await tool('list_knowledge_pieces', { external_ref: 'faq-shipping' }), listedOne);

    const bulk = await tool('bulk_upsert_knowledge_pieces', {
      items: [
        { external_ref: 'faq-returns', heading: 'Returns', text: 'Returns are free within thirty days of delivery.' },
        { external_ref: 'faq-shipping', heading: 'Shipping times', text: PIECE_TEXT },
      ],
    });
    expect(bulk.structuredContent).toMatchObject({ created: 1, updated: 1 });
    expectRestBody(await tool('list_knowledge_pieces', { limit: 1 }), (await rest('/knowledge?limit=1')).body);
    expectRestBody(await tool('list_knowledge_pieces'), (await rest('/knowledge')).body);
    expect(await tool('delete_knowledge_piece', { external_ref: 'faq-returns' })).toMatchObject({
      content: [{ type: 'text', text: expect.any(String) }],
    });
    expect((await rest('/knowledge?external_ref=faq-returns')).body).toEqual({ items: [] });

    expectRestBody(await tool('list_events', { after: 0, limit: 5 }), (await rest('/events?after=0&limit=5')).body);

    const registered = await tool('register_webhook', { url: WEBHOOK_URL, events: ['message.sent'] });
    expect(registered.isError).toBeFalsy();
    const restRegistered = await rest('/webhooks', { method: 'POST', json: { url: WEBHOOK_URL } });
    expect(Object.keys(registered.structuredContent ?? {})).toEqual(Object.keys(restRegistered.body as object));
    expect(registered.structuredContent).toMatchObject({
      url: WEBHOOK_URL,
      events: ['message.sent'],
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await tool('list_webhooks');
    expectRestBody(listed, (await rest('/webhooks')).body);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const id = (registered.structuredContent as { id: number }).id;
    expect((await tool('delete_webhook', { id })).isError).toBeFalsy();
    expectErrorBody(await tool('delete_webhook', { id }), (await rest(`/webhooks/${id}`, { method: 'DELETE' })).body);
  });

  it('invalid input: isError with the same error body as REST, nothing written', async () => {
    const short = { heading: 'Short', text: 'too short' };
    const restRefused = await rest('/knowledge/faq-short', { method: 'PUT', json: short });
    expect(restRefused.status).toBe(400);
    expectErrorBody(await tool('upsert_knowledge_piece', { external_ref: 'faq-short', ...short }), restRefused.body);
    expect((await rest('/knowledge?external_ref=faq-short')).body).toEqual({ items: [] });

    expectErrorBody(await tool('find_contacts', {}), (await rest('/contacts')).body);
    expectErrorBody(await tool('list_events', { limit: 500 }), (await rest('/events?limit=500')).body);
    const badBatch = {
      items: [
        { external_ref: 'a', heading: 'A', text: PIECE_TEXT },
        { external_ref: 'a', heading: '', text: 'short' },
      ],
    };
    expectErrorBody(
      await tool('bulk_upsert_knowledge_pieces', badBatch),
      (await rest('/knowledge/bulk', { method: 'POST', json: badBatch })).body,
    );

    const missing = await tool('get_contact', {});
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { code: 'validation_failed', details: [{ path: 'ref' }] } });
    expect((await tool('no_such_tool')).structuredContent).toMatchObject({ error: { code: 'not_found' } });
  });

  it('another account sees only its own data', async () => {
    await tool('upsert_contact', { ref: 'private-1', name: 'Mine' });
    const other = await connect(stack.other.key);
    try {
      const result = await tool('get_contact', { ref: 'private-1' }, other);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ error: { code: 'not_found' } });
      expectRestBody(await tool('whoami', {}, other), (await rest('/whoami', { key: stack.other.key })).body);
    } finally {
      await other.close();
    }
  });

  it("inbox, replies, knowledge search, bookings and analytics on the chat's back-office routes", async () => {
    const { widget } = (await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto;
    await tool('upsert_knowledge_piece', {
      external_ref: 'flat-berlin',
      heading: 'Flat in Berlin Mitte',
      text: 'The two-room flat in Berlin Mitte can be visited on weekdays; viewings last thirty minutes.',
    });
    const shopper = new ChatVisitor(stack.gateway.url);
    const session = await shopper.session({ widget });
    const conversationId = session.body.conversation.id;
    const stream = await shopper.stream();
    await shopper.send('Can I visit the flat in Berlin Mitte?');
    await stream.waitForMessage((m) => m.author === 'assistant');

    const inbox = await tool('list_conversations', {});
    expect(inbox.isError).toBeFalsy();
    expect((inbox.structuredContent as { conversations: Array<{ id: number }> }).conversations.map((c) => c.id)).toContain(conversationId);
    expect((await tool('list_conversations', { needs_human: 'true' })).structuredContent).toMatchObject({ conversations: [] });
    const read = await tool('get_conversation', { conversation_id: conversationId });
    expect(read.structuredContent).toMatchObject({
      conversation: { id: conversationId },
      messages: [{ author: 'customer', text: 'Can I visit the flat in Berlin Mitte?' }, { author: 'assistant' }],
    });

    // A reply from the agent: in the widget, and message.sent with author team in the feed.
    const reply = await tool('send_reply', { conversation_id: conversationId, text: 'Yes: which weekday suits you?' });
    expect(reply.structuredContent).toMatchObject({ message: { author: 'team', text: 'Yes: which weekday suits you?' } });
    expect(await stream.waitForMessage((m) => m.author === 'team')).toMatchObject({ text: 'Yes: which weekday suits you?' });
    await stream.close();
    const deadline = Date.now() + 20_000;
    let sent: PublicEvent | undefined;
    while (!sent && Date.now() < deadline) {
      const page = (await (await stack.call('/events?after=0&limit=200', { key: account.key })).json()) as { events: PublicEvent[] };
      sent = page.events.find(
        (e) => e.event === 'message.sent' && e.data.message.author === 'team' && e.data.conversation.id === conversationId,
      );
      if (!sent) await sleep(200);
    }
    expect(sent?.data).toMatchObject({ message: { text: 'Yes: which weekday suits you?', author: 'team' } });

    // Another account's conversation is not found, to read or to answer.
    const other = await connect(stack.other.key);
    try {
      expect((await tool('get_conversation', { conversation_id: conversationId }, other)).structuredContent).toMatchObject({
        error: { code: 'not_found' },
      });
      expect((await tool('send_reply', { conversation_id: conversationId, text: 'Hi' }, other)).structuredContent).toMatchObject({
        error: { code: 'not_found' },
      });
    } finally {
      await other.close();
    }

    const preview = await tool('search_knowledge', { question: 'Can I visit the flat in Berlin Mitte?' });
    expect(preview.isError).toBeFalsy();
    expect(preview.structuredContent).toMatchObject({
      cited_piece: expect.objectContaining({ external_ref: 'flat-berlin' }),
      answer: expect.any(String),
    });

    const startsAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const created = await tool('create_booking', {
      conversation_id: conversationId,
      listing_ref: 'flat-berlin',
      starts_at: startsAt,
      note: 'Viewing',
    });
    expect(created.structuredContent).toMatchObject({
      booking: { conversation_id: conversationId, status: 'requested', created_by: 'agent', listing_ref: 'flat-berlin' },
    });
    const bookingId = (created.structuredContent as { booking: { id: number } }).booking.id;
    expect((await tool('update_booking', { booking_id: bookingId, status: 'confirmed' })).structuredContent).toMatchObject({
      booking: { id: bookingId, status: 'confirmed' },
    });
    expect((await tool('update_booking', { booking_id: bookingId, status: 'declined' })).structuredContent).toMatchObject({
      error: { code: 'conflict' },
    });
    expect((await tool('list_bookings', { status: 'confirmed' })).structuredContent).toMatchObject({ bookings: [{ id: bookingId }] });
    expect((await tool('create_booking', { conversation_id: conversationId, starts_at: 'tomorrow' })).isError).toBe(true);

    const today = new Date().toISOString().slice(0, 10);
    const analytics = await tool('get_analytics', { from: today, to: today });
    expect(analytics.isError).toBeFalsy();
    expect(JSON.stringify(analytics.structuredContent)).toContain(today);
    expect((await tool('get_analytics', { from: 'yesterday', to: today })).structuredContent).toMatchObject({
      error: { code: 'invalid_parameter' },
    });
  });

  it('withdraw_consent (ids from list_consents) → consent.withdrawn by the team, once; send_whatsapp_template on a web conversation → conflict', async () => {
    const givenAt = '2026-11-01T10:00:00.000Z';
    const put = await rest('/contacts/c-agent', {
      method: 'PUT',
      json: {
        name: 'Agnes',
        phone: '+447700900555',
        consents: [{ purpose: 'future_whatsapp', text: 'Yes, message me on WhatsApp.', given_at: givenAt, source: 'shop' }],
      },
    });
    expect(put.status).toBe(201);
    const svcId = (put.body as { svc_id: number }).svc_id;
    const listed = await tool('list_consents', { svc_id: svcId });
    expect(listed.isError).toBeFalsy();
    const [consent] = (listed.structuredContent as { consents: Array<{ id: number; purpose: string; active: boolean }> }).consents;
    expect(consent).toMatchObject({ purpose: 'future_whatsapp', active: true });

    const withdrawn = await tool('withdraw_consent', { svc_id: svcId, consent_id: consent!.id });
    expect(withdrawn.isError).toBeFalsy();
    expect(withdrawn.structuredContent).toMatchObject({ id: consent!.id, active: false, withdrawn_by: 'team' });
    expect((await tool('withdraw_consent', { svc_id: svcId, consent_id: consent!.id })).isError).toBeFalsy();
    const deadline = Date.now() + 20_000;
    let events: PublicEvent[] = [];
    while (Date.now() < deadline) {
      events = (
        (await (await stack.call('/events?after=0&limit=200', { key: account.key })).json()) as { events: PublicEvent[] }
      ).events.filter((e) => e.event === 'consent.withdrawn');
      if (events.length > 0) break;
      await sleep(200);
    }
    await sleep(1_000);
    events = (
      (await (await stack.call('/events?after=0&limit=200', { key: account.key })).json()) as { events: PublicEvent[] }
    ).events.filter((e) => e.event === 'consent.withdrawn');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      contact: { ref: 'c-agent' },
      consent: { purpose: 'future_whatsapp', withdrawn_by: 'team' },
      conversation: null,
    });
    expect((await rest('/contacts/c-agent')).body).toMatchObject({ consents: [{ purpose: 'future_whatsapp', active: false }] });
    // Another account cannot name this customer's consent.
    const other = await connect(stack.other.key);
    try {
      expect((await tool('withdraw_consent', { svc_id: svcId, consent_id: consent!.id }, other)).structuredContent).toMatchObject({
        error: { code: 'not_found' },
      });
    } finally {
      await other.close();
    }

    const { widget } = (await (await stack.call('/whoami', { key: account.key })).json()) as WhoamiResponseDto;
    const visitor = new ChatVisitor(stack.gateway.url);
    const session = await visitor.session({ widget });
    await visitor.send('Hello there');
    const template = await tool('send_whatsapp_template', {
      conversation_id: session.body.conversation.id,
      template: 'order_update',
      lang: 'en',
    });
    expect(template.isError).toBe(true);
    expect(template.structuredContent).toMatchObject({ error: { code: expect.stringMatching(/^(conflict|not_found)$/) } });
  });

  it("writes count in the key's REST write limits: the 121st write in a minute, REST and MCP mixed, is refused", async () => {
    const writer = await stack.newAccount('Busy');
    const client = await connect(writer.key);
    try {
      for (let i = 0; i < 60; i += 1) {
        const viaRest = await stack.call(`/knowledge/r-${i}`, {
          method: 'PUT',
          key: writer.key,
          json: { heading: `R ${i}`, text: PIECE_TEXT },
        });
        expect(viaRest.status).toBe(201);
        const viaMcp = await tool('upsert_knowledge_piece', { external_ref: `m-${i}`, heading: `M ${i}`, text: PIECE_TEXT }, client);
        expect(viaMcp.isError).toBeFalsy();
      }
      // Reads do not count.
      expect((await tool('list_knowledge_pieces', { limit: 1 }, client)).isError).toBeFalsy();
      const refused = await tool('upsert_knowledge_piece', { external_ref: 'one-too-many', heading: 'No', text: PIECE_TEXT }, client);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/retry in \d+ s/) } });
      expect(refused._meta?.['retry_after_seconds']).toBeGreaterThanOrEqual(1);
      const pieces = (await stack.call('/knowledge?external_ref=one-too-many', { key: writer.key }).then((r) => r.json())) as {
        items: unknown[];
      };
      expect(pieces.items).toEqual([]);
      const restRefused = await stack.call('/knowledge/r-x', { method: 'PUT', key: writer.key, json: { heading: 'X', text: PIECE_TEXT } });
      expect(restRefused.status).toBe(429);
    } finally {
      await client.close();
    }
  });

  it('search_knowledge counts like a write (it runs the assistant): with 10 writes left, 10 of 30 questions sent at once are answered', async () => {
    const asker = await stack.newAccount('Curious');
    const client = await connect(asker.key);
    try {
      const writes = await Promise.all(
        Array.from({ length: 110 }, (_, i) => stack.call(`/contacts/q-${i}`, { method: 'PUT', key: asker.key, json: {} })),
      );
      expect(writes.filter((r) => r.status >= 300)).toEqual([]);
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => tool('search_knowledge', { question: 'Do you ship to Berlin?' }, client)),
      );
      expect(answers.filter((a) => !a.isError)).toHaveLength(10);
      const refused = answers.filter((a) => a.isError);
      expect(refused).toHaveLength(20);
      for (const result of refused) {
        expect(result.structuredContent).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/retry in \d+ s/) } });
        expect(result._meta?.['retry_after_seconds']).toBeGreaterThanOrEqual(1);
      }
      expect((await stack.call('/contacts/one-more', { method: 'PUT', key: asker.key, json: {} })).status).toBe(429);
    } finally {
      await client.close();
    }
  });

  it('teach_assistant: the question is answered from the piece taught (or by nothing), unknown pieces are not_found, bad input refused', async () => {
    const teacher = await stack.newAccount('Teachers');
    const client = await connect(teacher.key);
    const ask = async (question: string) =>
      (
        (await tool('search_knowledge', { question, lang: 'en' }, client)).structuredContent as {
          cited_piece: { external_ref: string } | null;
        }
      ).cited_piece?.external_ref ?? null;
    try {
      const put = (ref: string, heading: string, text: string) =>
        stack.call(`/knowledge/${ref}`, { method: 'PUT', key: teacher.key, json: { heading, text } });
      expect((await put('pets', 'Pets', 'Well-behaved dogs are welcome in every room for 10 euros a night.')).status).toBe(201);
      expect((await put('parking', 'Parking', 'Guests park for free in the yard behind the house.')).status).toBe(201);
      expect(await ask('can we come with our springer spaniel?')).toBeNull();

      const taught = await tool('teach_assistant', { question: 'Can we come with our springer spaniel?', external_ref: 'pets' }, client);
      expect(taught.isError).toBeFalsy();
      const item = taught.structuredContent as unknown as TaughtItem;
      expect(item).toEqual({
        id: expect.any(Number),
        question: 'Can we come with our springer spaniel?',
        lang: 'en',
        external_ref: 'pets',
        created_at: expect.any(String),
        created_by: expect.stringMatching(/^agent:/),
      });
      expect(JSON.parse((taught.content[0] as { text: string }).text)).toEqual(item);
      expect(await ask('can we come with our springer spaniel?')).toBe('pets');
      expect(await ask('is a spaniel ok?')).toBe('pets');

      expect(await ask('where can we park the car?')).toBe('parking');
      expect((await tool('teach_assistant', { question: 'Where can we park the car?', external_ref: null }, client)).isError).toBeFalsy();
      expect(await ask('where can we park the car?')).toBeNull();

      expectErrorBody(await tool('teach_assistant', { question: 'Do you rent kayaks?', external_ref: 'kayaks' }, client), {
        error: { code: 'not_found', message: 'There is no knowledge piece with external_ref "kayaks".' },
      });
      const missing = await tool('teach_assistant', { question: 'Do you rent kayaks?' }, client);
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ error: { code: 'validation_failed', details: [{ path: 'external_ref' }] } });
      // Another account does not see this account's pieces.
      expect((await tool('teach_assistant', { question: 'Dogs?', external_ref: 'pets' })).structuredContent).toMatchObject({
        error: { code: 'not_found' },
      });
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'teach_assistant')?.inputSchema).toMatchObject({
        properties: { question: { type: 'string' }, external_ref: { type: ['string', 'null'] } },
        required: expect.arrayContaining(['question', 'external_ref']),
      });
    } finally {
      await client.close();
    }
  });

  it('teach_assistant counts as a write: with 5 writes left, 5 of 12 questions taught at once are written', async () => {
    const teacher = await stack.newAccount('Busy teachers');
    const client = await connect(teacher.key);
    try {
      const writes = await Promise.all(
        Array.from({ length: 115 }, (_, i) => stack.call(`/contacts/t-${i}`, { method: 'PUT', key: teacher.key, json: {} })),
      );
      expect(writes.filter((r) => r.status >= 300)).toEqual([]);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => tool('teach_assistant', { question: `Question number ${i}?`, external_ref: null }, client)),
      );
      expect(results.filter((r) => !r.isError)).toHaveLength(5);
      for (const refused of results.filter((r) => r.isError))
        expect(refused.structuredContent).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/retry in \d+ s/) } });
      const rows = await queryRows<{ n: number }>(
        stack.dataSource,
        'SELECT count(*)::int AS n FROM knowledge.taught WHERE account_id = $1',
        [teacher.accountId],
      );
      expect(rows[0]?.n).toBe(5);
    } finally {
      await client.close();
    }
  });
});
