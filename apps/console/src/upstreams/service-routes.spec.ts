import { SERVICE_ROUTES, targetPath } from './service-routes';

describe("the console's service routes", () => {
  it('fills the service path with the encoded parameters and keeps the query string', () => {
    expect(targetPath('/internal/chat/conversations/:id', { id: '42' }, '/console/v1/conversations/42')).toBe(
      '/internal/chat/conversations/42',
    );
    expect(targetPath('/contacts/:ref', { ref: 'a/b c' }, '/console/v1/contacts/a%2Fb%20c?x=1')).toBe('/contacts/a%2Fb%20c?x=1');
    expect(targetPath('/webhooks/:id/deliveries', { id: '7' }, '/console/v1/webhooks/7/deliveries?status=failed&limit=5')).toBe(
      '/webhooks/7/deliveries?status=failed&limit=5',
    );
  });

  it('names every parameter of a route in its target, and each route once', () => {
    const seen = new Set<string>();
    for (const route of SERVICE_ROUTES) {
      const params = (path: string) => [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]).sort();
      expect(params(route.target)).toEqual(params(route.path));
      const key = `${route.method} ${route.path}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });

  it('keys and webhooks need the Scale plan; the inbox does not', () => {
    const scale = (method: string, path: string) => SERVICE_ROUTES.find((r) => r.method === method && r.path === path)?.scale;
    expect(scale('POST', '/keys')).toBe(true);
    expect(scale('POST', '/webhooks')).toBe(true);
    expect(scale('GET', '/conversations')).toBe(false);
  });

  it("keys, webhooks and the widget's allowed origins are for owners; conversations, customers and bookings for every member", () => {
    const owner = (method: string, path: string) => SERVICE_ROUTES.find((r) => r.method === method && r.path === path)?.owner;
    for (const r of SERVICE_ROUTES.filter((r) => r.path.startsWith('/keys') || r.path.startsWith('/webhooks'))) expect(r.owner).toBe(true);
    expect(owner('PUT', '/widget-settings')).toBe(true);
    for (const [method, path] of [
      ['GET', '/conversations'],
      ['POST', '/conversations/:id/replies'],
      ['GET', '/contacts'],
      ['GET', '/customers/:svcId'],
      ['PATCH', '/bookings/:id'],
      ['GET', '/widget-settings'],
      ['GET', '/account'],
      ['POST', '/taught'],
      ['DELETE', '/taught/:id'],
    ])
      expect(owner(method ?? '', path ?? '')).toBe(false);
  });
});
