/** The HTTP methods routes answer. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A route an app serves: the method and the path from the app's root, in Fastify's `:param` syntax. */
export interface AppRoute<A extends string = string> {
  readonly app: A;
  readonly method: RouteMethod;
  readonly path: string;
}

type RouteTable = Record<string, `${RouteMethod} /${string}`>;

/** The routes `app` serves, each written once as `'METHOD /path'`. */
function routesOf<A extends string, T extends RouteTable>(app: A, table: T): { readonly [K in keyof T]: AppRoute<A> } {
  const entries = Object.entries(table).map(([name, route]) => {
    const [method, path] = route.split(' ') as [RouteMethod, string];
    return [name, { app, method, path }];
  });
  return Object.fromEntries(entries) as { readonly [K in keyof T]: AppRoute<A> };
}

/**
 * The public API (below `/api/v1`), by the app that serves each route: controllers declare their
 * routes with these (`@Route`), and the gateway proxies every one that is not its own.
 */
export const API_ROUTES = {
  whoami: routesOf('gateway', { get: 'GET /whoami' }),
  contacts: routesOf('contacts-api', {
    upsert: 'PUT /contacts/:ref',
    get: 'GET /contacts/:ref',
    erase: 'DELETE /contacts/:ref',
    list: 'GET /contacts',
  }),
  identity: routesOf('identity-issuer', { issue: 'POST /contacts/:ref/identity' }),
  knowledge: routesOf('knowledge-api', {
    upsert: 'PUT /knowledge/:externalRef',
    remove: 'DELETE /knowledge/:externalRef',
    bulk: 'POST /knowledge/bulk',
    list: 'GET /knowledge',
  }),
  events: routesOf('events-api', { list: 'GET /events' }),
  webhooks: routesOf('webhook-dispatcher', {
    create: 'POST /webhooks',
    list: 'GET /webhooks',
    remove: 'DELETE /webhooks/:id',
    get: 'GET /webhooks/:id',
    update: 'PATCH /webhooks/:id',
    rotateSecret: 'POST /webhooks/:id/rotate-secret',
    deliveries: 'GET /webhooks/:id/deliveries',
    resend: 'POST /webhooks/:id/deliveries/:deliveryId/resend',
    recover: 'POST /webhooks/:id/recover',
    test: 'POST /webhooks/:id/test',
  }),
};

/** Internal routes (`/internal/…`, signed calls between apps) that the console's route table points at. */
export const INTERNAL_ROUTES = {
  chat: routesOf('chat', {
    conversations: 'GET /internal/chat/conversations',
    conversation: 'GET /internal/chat/conversations/:id',
    reply: 'POST /internal/chat/conversations/:id/replies',
    inboxStream: 'GET /internal/chat/inbox/stream',
    whatsappNumber: 'PUT /internal/chat/whatsapp-number',
    whatsappTemplate: 'POST /internal/chat/conversations/:id/whatsapp-template',
    whatsappText: 'POST /internal/chat/conversations/:id/whatsapp-text',
    bookings: 'GET /internal/chat/bookings',
    createBooking: 'POST /internal/chat/bookings',
    updateBooking: 'PATCH /internal/chat/bookings/:id',
    analytics: 'GET /internal/chat/analytics',
    preview: 'POST /internal/chat/assistant/preview',
    widgetSettings: 'GET /internal/chat/widget-settings',
    setWidgetSettings: 'PUT /internal/chat/widget-settings',
    customerChanges: 'POST /internal/chat/customer-changes',
  }),
  contacts: routesOf('contacts-api', {
    byRef: 'GET /internal/contacts/by-ref/:ref',
    bySvcId: 'GET /internal/contacts/by-svc-id/:svcId',
    chatMet: 'POST /internal/contacts/chat-met',
    update: 'PATCH /internal/contacts/by-svc-id/:svcId',
    addConsent: 'POST /internal/contacts/by-svc-id/:svcId/consents',
    consents: 'GET /internal/contacts/by-svc-id/:svcId/consents',
    withdrawConsent: 'POST /internal/contacts/by-svc-id/:svcId/consents/:consentId/withdraw',
    whatsappStop: 'POST /internal/contacts/whatsapp-stop',
    confirm: 'POST /internal/contacts/by-svc-id/:svcId/confirm',
  }),
  /** What the team taught the assistant (knowledge-api), for the console and MCP. */
  knowledge: routesOf('knowledge-api', {
    teach: 'POST /internal/knowledge/taught',
    taught: 'GET /internal/knowledge/taught',
    untaught: 'DELETE /internal/knowledge/taught/:id',
  }),
  /** What the gateway owns (the account, its API keys), for the console. */
  gateway: routesOf('gateway', {
    account: 'GET /internal/console/account',
    keys: 'GET /internal/console/keys',
    createKey: 'POST /internal/console/keys',
    revokeKey: 'POST /internal/console/keys/:id/revoke',
  }),
};

type AppOf<G> = G extends Record<string, AppRoute<infer A>> ? A : never;
/** The apps that serve the public API. */
export type ApiApp = AppOf<(typeof API_ROUTES)[keyof typeof API_ROUTES]>;

/** Every route of the public API, in the order above. */
export const API_ROUTE_LIST: readonly AppRoute<ApiApp>[] = Object.values(API_ROUTES).flatMap((group): AppRoute<ApiApp>[] =>
  Object.values(group),
);
