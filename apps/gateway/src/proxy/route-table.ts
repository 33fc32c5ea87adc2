import type { HTTPMethods } from 'fastify';
import type { GatewayConfig } from '../gateway.config';

/** The services behind the gateway and the setting that says where each one listens. */
export const UPSTREAMS = {
  'contacts-api': 'CONTACTS_API_URL',
  'identity-issuer': 'IDENTITY_ISSUER_URL',
  'knowledge-api': 'KNOWLEDGE_API_URL',
  'events-api': 'EVENTS_API_URL',
  'webhook-dispatcher': 'WEBHOOK_DISPATCHER_URL',
} as const satisfies Record<string, keyof GatewayConfig>;

export type Upstream = keyof typeof UPSTREAMS;

export interface ProxyRoute {
  method: HTTPMethods;
  /** Path below `/api/v1`, in Fastify's syntax; the service serves the same path. */
  path: string;
  upstream: Upstream;
}

/** Every public route the gateway does not answer itself, and the service that owns it. */
export const ROUTES: readonly ProxyRoute[] = [
  { method: 'PUT', path: '/contacts/:ref', upstream: 'contacts-api' },
  { method: 'GET', path: '/contacts/:ref', upstream: 'contacts-api' },
  { method: 'DELETE', path: '/contacts/:ref', upstream: 'contacts-api' },
  { method: 'GET', path: '/contacts', upstream: 'contacts-api' },
  { method: 'POST', path: '/contacts/:ref/identity', upstream: 'identity-issuer' },
  { method: 'PUT', path: '/knowledge/:externalRef', upstream: 'knowledge-api' },
  { method: 'DELETE', path: '/knowledge/:externalRef', upstream: 'knowledge-api' },
  { method: 'POST', path: '/knowledge/bulk', upstream: 'knowledge-api' },
  { method: 'GET', path: '/knowledge', upstream: 'knowledge-api' },
  { method: 'GET', path: '/events', upstream: 'events-api' },
  { method: 'POST', path: '/webhooks', upstream: 'webhook-dispatcher' },
  { method: 'GET', path: '/webhooks', upstream: 'webhook-dispatcher' },
  { method: 'DELETE', path: '/webhooks/:id', upstream: 'webhook-dispatcher' },
  { method: 'GET', path: '/webhooks/:id', upstream: 'webhook-dispatcher' },
  { method: 'PATCH', path: '/webhooks/:id', upstream: 'webhook-dispatcher' },
  { method: 'POST', path: '/webhooks/:id/rotate-secret', upstream: 'webhook-dispatcher' },
  { method: 'GET', path: '/webhooks/:id/deliveries', upstream: 'webhook-dispatcher' },
  { method: 'POST', path: '/webhooks/:id/deliveries/:deliveryId/resend', upstream: 'webhook-dispatcher' },
  { method: 'POST', path: '/webhooks/:id/recover', upstream: 'webhook-dispatcher' },
  { method: 'POST', path: '/webhooks/:id/test', upstream: 'webhook-dispatcher' },
];
