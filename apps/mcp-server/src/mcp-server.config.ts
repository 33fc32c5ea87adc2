import { baseConfigSpec, Config, internalAuthConfigSpec, millis, port, url } from '@svc/platform';

export const mcpServerConfigSpec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  PORT: port({ default: 3008, desc: 'Port of mcp-server (MCP over Streamable HTTP; reached only through the gateway at `/mcp`).' }),
  GATEWAY_URL: url({
    default: 'http://127.0.0.1:3000',
    desc: 'The gateway: the OpenAPI document the tool schemas come from, `whoami`, and the per-key write limits the write tools count in.',
  }),
  CONTACTS_API_URL: url({ default: 'http://127.0.0.1:3001', desc: 'contacts-api (customers, consents).' }),
  IDENTITY_ISSUER_URL: url({ default: 'http://127.0.0.1:3002', desc: 'identity-issuer (same-browser passes).' }),
  KNOWLEDGE_API_URL: url({ default: 'http://127.0.0.1:3003', desc: 'knowledge-api (knowledge pieces).' }),
  EVENTS_API_URL: url({ default: 'http://127.0.0.1:3004', desc: 'events-api (the event feed).' }),
  WEBHOOK_DISPATCHER_URL: url({ default: 'http://127.0.0.1:3005', desc: 'webhook-dispatcher (webhook endpoints).' }),
  CHAT_URL: url({
    default: 'http://127.0.0.1:3006',
    desc: 'The chat: its back-office routes (inbox, replies, bookings, the assistant preview, analytics).',
  }),
  MCP_UPSTREAM_TIMEOUT_MS: millis(120_000)({
    default: 30_000,
    desc: 'How long a tool waits for the service it calls before it answers `unavailable`.',
  }),
};

export type McpServerConfig = Config<typeof mcpServerConfigSpec>;
