import { startStack, Stack } from '@svc/testing';

/** CONTRACT.md "One public origin": nothing under /internal/ (nor /metrics) answers on a public listener. */
describe('internal routes on the public origin', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'knowledge-api', 'chat', 'console']);
  }, 180_000);

  afterAll(() => stack?.stop());

  const INTERNAL_PATHS = [
    '/internal/console/keys',
    '/internal/console/account',
    '/internal/widgets/wgt_x',
    '/internal/whoami',
    '/internal/chat/conversations',
    '/internal/contacts/by-svc-id/1',
    '/internal/knowledge/search',
    '/%69nternal/console/keys',
    '//internal/console/keys',
    '/INTERNAL/console/keys',
    '/internal%2Fconsole%2Fkeys',
    '/metrics',
  ];

  it('is 404 in the error shape on the gateway, and on the chat and console the Ingress exposes', async () => {
    const publicListeners = { gateway: stack.gateway.url, chat: stack.services['chat']!.url, console: stack.services['console']!.url };
    for (const [app, base] of Object.entries(publicListeners))
      for (const path of INTERNAL_PATHS)
        for (const method of ['GET', 'POST']) {
          const response = await fetch(`${base}${path}`, {
            method,
            headers: { 'content-type': 'application/json' },
            body: method === 'POST' ? '{}' : undefined,
          });
          const body = (await response.json()) as { error?: { code?: string } };
          expect([app, method, path, response.status, body.error?.code]).toEqual([app, method, path, 404, 'not_found']);
        }
  });

  it('is served on each app internal listener, where the apps reach each other', async () => {
    // Without a signed context: refused by the route itself (401), so it is there.
    expect((await fetch(`${stack.gateway.internalUrl}/internal/console/keys`)).status).toBe(401);
    expect((await fetch(`${stack.services['chat']!.internalUrl}/internal/chat/conversations`)).status).toBe(401);
    expect((await fetch(`${stack.services['console']!.internalUrl}/metrics`)).status).toBe(200);
    // The public routes are on both listeners (the gateway proxies to the internal one).
    expect((await fetch(`${stack.services['chat']!.url}/chat/widget.js`)).status).toBe(200);
    expect((await fetch(`${stack.gateway.url}/chat/widget.js`)).status).toBe(200);
  });
});
