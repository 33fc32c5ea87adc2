import { ErrorBody, GatewayContext } from '@svc/contracts';
import { GATEWAY_CONTEXT_HEADER, InternalAuth, InternalCaller } from '@svc/platform';
import { Stack, startStack } from '@svc/testing';
import { randomUUID } from 'node:crypto';

/**
 * Each app signs its internal calls with its own key, and each internal route names the callers it
 * accepts (ADR 015): a context another app signed is refused with 403 in the error shape, on a
 * sample of routes of every app, over real processes.
 */
describe('internal routes accept only the callers they name (every app, processes)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack(
      ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat', 'console', 'mcp-server'],
      {
        startTimeoutMs: 60_000,
      },
    );
  }, 300_000);

  afterAll(() => stack?.stop());

  const context = (): GatewayContext => ({
    account: { id: stack.account.accountId, name: 'Acme', plan: 'scale' },
    keyId: 'test',
    requestId: randomUUID(),
  });

  /** A call to `app`'s internal listener signed by `caller` (none: unsigned). */
  const call = async (caller: InternalCaller | null, app: string, method: string, path: string, json?: unknown): Promise<Response> => {
    const base = app === 'gateway' ? stack.gateway.internalUrl : stack.services[app]?.internalUrl;
    const headers: Record<string, string> = json === undefined ? {} : { 'content-type': 'application/json' };
    if (caller) headers[GATEWAY_CONTEXT_HEADER] = await InternalAuth.fromEnv(caller, stack.env).sign(app, context());
    return fetch(`${base}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  };

  const refused = async (response: Response, caller: InternalCaller): Promise<void> => {
    expect(response.status).toBe(403);
    expect((await response.json()) as ErrorBody).toEqual({
      error: { code: 'forbidden', message: `This route does not accept calls from ${caller}.` },
    });
  };

  it("refuses a context the chat signed on the gateway's key-minting route; the console's is accepted", async () => {
    const keys = async () =>
      ((await (await call('console', 'gateway', 'GET', '/internal/console/keys')).json()) as { keys: unknown[] }).keys;
    const before = await keys();
    expect(before.length).toBeGreaterThan(0);
    await refused(await call('chat', 'gateway', 'GET', '/internal/console/keys'), 'chat');
    await refused(await call('chat', 'gateway', 'POST', '/internal/console/keys', {}), 'chat');
    // No key was minted from the chat's context.
    expect(await keys()).toHaveLength(before.length);
    const unsigned = await call(null, 'gateway', 'GET', '/internal/console/keys');
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as ErrorBody).error.code).toBe('unauthorized');
  });

  // [app, method, path, a caller the route refuses, one it accepts (its answer is not 401/403), body]
  const sample: Array<[string, string, string, InternalCaller, InternalCaller, unknown?]> = [
    ['gateway', 'GET', '/internal/widgets/wgt_00000000000000000000000000000000', 'console', 'chat'],
    ['gateway', 'GET', '/internal/whoami', 'chat', 'mcp-server'],
    ['contacts-api', 'GET', '/internal/contacts/by-ref/c-1', 'mcp-server', 'chat'],
    ['contacts-api', 'GET', '/contacts', 'chat', 'console'],
    ['identity-issuer', 'POST', '/internal/identity/verify', 'console', 'chat', { token: 'x' }],
    ['identity-issuer', 'POST', '/contacts/c-1/identity', 'chat', 'gateway', {}],
    ['knowledge-api', 'POST', '/internal/knowledge/search', 'console', 'chat', { question: 'shoes', lang: 'en' }],
    ['knowledge-api', 'GET', '/knowledge', 'chat', 'mcp-server'],
    ['events-api', 'GET', `/internal/events/by-uuid/${randomUUID()}`, 'chat', 'admin'],
    ['events-api', 'GET', '/events', 'console', 'gateway'],
    ['webhook-dispatcher', 'GET', '/webhooks', 'chat', 'console'],
    ['chat', 'PUT', '/internal/chat/whatsapp-number', 'console', 'admin', { phone_number_id: '1', number: '+15550001234' }],
    ['chat', 'GET', '/internal/chat/widget-settings', 'mcp-server', 'console'],
    ['chat', 'GET', '/internal/chat/conversations', 'gateway', 'mcp-server'],
    ['console', 'POST', '/internal/console/users', 'chat', 'admin', { email: 'x@example.com' }],
    ['mcp-server', 'POST', '/mcp', 'console', 'gateway', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  ];

  it.each(sample)(
    '%s %s %s: 403 when signed by %s (not in its list), not when signed by %s',
    // One parameter list of the row (a body is optional): with more parameters than a row has, jest would wait for `done`.
    async (...[app, method, path, stranger, accepted, body]: (typeof sample)[number]) => {
      await refused(await call(stranger, app, method, path, body), stranger);
      const allowed = await call(accepted, app, method, path, body);
      expect([401, 403]).not.toContain(allowed.status);
    },
  );
});
