import { API_ROUTE_LIST } from '@svc/contracts';
import type { HTTPMethods } from 'fastify';
import type { GatewayConfig } from '../gateway.config';

/** The services behind the gateway and the setting that says where each one listens. */
export const UPSTREAMS = {
  'contacts-api': 'CONTACTS_API_URL',
  'identity-issuer': 'IDENTITY_ISSUER_URL',
  'knowledge-api': 'KNOWLEDGE_API_URL',
  'events-api': 'EVENTS_API_URL',
  'webhook-dispatcher': 'WEBHOOK_DISPATCHER_URL',
  'mcp-server': 'MCP_SERVER_URL',
} as const satisfies Record<string, keyof GatewayConfig>;

export type Upstream = keyof typeof UPSTREAMS;

export interface ProxyRoute {
  method: HTTPMethods;
  /** Path below `/api/v1`, in Fastify's syntax; the service serves the same path. */
  path: string;
  upstream: Upstream;
}

/** Every public route the gateway does not answer itself, and the service that owns it (from `API_ROUTES`). */
export const ROUTES: readonly ProxyRoute[] = API_ROUTE_LIST.flatMap(({ app, method, path }) =>
  app === 'gateway' ? [] : [{ method, path, upstream: app }],
);
