import { ApiError } from '@svc/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, requireOwner } from '../members/session';
import { MembersService } from '../members/members.service';
import { Upstream, Upstreams } from './upstreams';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A console route (under `/console/v1`) answered by a service's route, as the service answers it. */
export interface ServiceRoute {
  method: Method;
  path: string;
  upstream: Upstream;
  /** The service's path, with the same `:params`. */
  target: string;
  /** The API's features (keys, webhooks) need the Scale plan, as on the API. */
  scale: boolean;
  /** Only an owner may call it (keys, webhooks, the widget's allowed origins); an agent gets 403 `forbidden`. */
  owner: boolean;
}

const route = (method: Method, path: string, upstream: Upstream, target = path, scale = false, owner = false): ServiceRoute => ({
  method,
  path,
  upstream,
  target,
  scale,
  owner,
});
const chat = (method: Method, path: string, owner = false): ServiceRoute =>
  route(method, path, 'chat', `/internal/chat${path}`, false, owner);
const keys = (method: Method, path: string, target: string): ServiceRoute => route(method, path, 'gateway', target, true, true);
const webhooks = (method: Method, path: string): ServiceRoute => route(method, path, 'webhook-dispatcher', path, true, true);

/**
 * What the console's pages call, in one table: each the member's account's view of a service route
 * (the service checks the input and scopes every query to the account named in the signed context).
 */
export const SERVICE_ROUTES: ServiceRoute[] = [
  // Inbox (the chat).
  chat('GET', '/conversations'),
  chat('GET', '/conversations/:id'),
  chat('POST', '/conversations/:id/replies'),
  chat('POST', '/conversations/:id/whatsapp-template'),
  // Bookings, analytics, "ask as a customer", widget settings (the chat).
  chat('GET', '/bookings'),
  chat('POST', '/bookings'),
  chat('PATCH', '/bookings/:id'),
  chat('GET', '/analytics'),
  chat('POST', '/assistant/preview'),
  chat('GET', '/widget-settings'),
  chat('PUT', '/widget-settings', true),
  // Customers (contacts-api): find by email or phone, open by ref or by svc_id.
  route('GET', '/contacts', 'contacts-api'),
  route('GET', '/contacts/:ref', 'contacts-api'),
  route('GET', '/customers/:svcId', 'contacts-api', '/internal/contacts/by-svc-id/:svcId'),
  route('GET', '/customers/:svcId/consents', 'contacts-api', '/internal/contacts/by-svc-id/:svcId/consents'),
  // Knowledge (knowledge-api).
  route('GET', '/knowledge', 'knowledge-api'),
  // The account and, for owners, its keys (the gateway owns them).
  route('GET', '/account', 'gateway', '/internal/console/account'),
  keys('GET', '/keys', '/internal/console/keys'),
  keys('POST', '/keys', '/internal/console/keys'),
  keys('POST', '/keys/:id/revoke', '/internal/console/keys/:id/revoke'),
  // Webhooks (webhook-dispatcher): the API's own routes, owners only.
  webhooks('GET', '/webhooks'),
  webhooks('POST', '/webhooks'),
  webhooks('GET', '/webhooks/:id'),
  webhooks('PATCH', '/webhooks/:id'),
  webhooks('DELETE', '/webhooks/:id'),
  webhooks('GET', '/webhooks/:id/deliveries'),
  webhooks('POST', '/webhooks/:id/deliveries/:deliveryId/resend'),
  webhooks('POST', '/webhooks/:id/recover'),
  webhooks('POST', '/webhooks/:id/test'),
  webhooks('POST', '/webhooks/:id/rotate-secret'),
];

export const CONSOLE_API = '/console/v1';

/** The service's path for a call: the route's target with the call's parameters (encoded) and query string. */
export function targetPath(target: string, params: Record<string, string>, url: string): string {
  const path = target.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const query = url.indexOf('?');
  return query === -1 ? path : path + url.slice(query);
}

/** Registers every route of the table on the console's server. */
export function serveServiceRoutes(fastify: FastifyInstance, members: MembersService, upstreams: Upstreams, appOrigin: string): void {
  for (const entry of SERVICE_ROUTES) {
    fastify.route({
      method: entry.method,
      url: `${CONSOLE_API}${entry.path}`,
      handler: async (request: FastifyRequest, reply) => {
        const member = await authenticate(request, members, appOrigin);
        if (entry.owner) requireOwner(member);
        const context = await upstreams.context(member, request.id);
        if (entry.scale && context.account.plan !== 'scale') {
          throw new ApiError('plan_required', 'API keys and webhooks need the Scale plan (Settings → Plan).');
        }
        const path = targetPath(entry.target, request.params as Record<string, string>, request.url);
        const body = entry.method === 'GET' || entry.method === 'DELETE' ? undefined : (request.body ?? {});
        const response = await upstreams.call(entry.upstream, entry.method, path, context, body);
        reply.code(response.status);
        return response.body === undefined ? reply.send() : reply.send(response.body);
      },
    });
  }
}
