import { Config, millis, callerConfigSpec, serviceUrl } from '@svc/platform';

export const mcpServerConfigSpec = {
  ...callerConfigSpec('mcp-server', 'Port of mcp-server (MCP over Streamable HTTP; reached only through the gateway at `/mcp`).'),
  GATEWAY_URL: serviceUrl(
    'gateway',
    'The gateway: the OpenAPI document the tool schemas come from, `whoami`, and the per-key write limits the write tools count in.',
  ),
  CONTACTS_API_URL: serviceUrl('contacts-api', 'contacts-api (customers, consents).'),
  IDENTITY_ISSUER_URL: serviceUrl('identity-issuer', 'identity-issuer (same-browser passes).'),
  KNOWLEDGE_API_URL: serviceUrl('knowledge-api', 'knowledge-api (knowledge pieces).'),
  EVENTS_API_URL: serviceUrl('events-api', 'events-api (the event feed).'),
  WEBHOOK_DISPATCHER_URL: serviceUrl('webhook-dispatcher', 'webhook-dispatcher (webhook endpoints).'),
  CHAT_URL: serviceUrl('chat', 'The chat: its back-office routes (inbox, replies, bookings, the assistant preview, analytics).'),
  MCP_UPSTREAM_TIMEOUT_MS: millis(120_000)({
    default: 30_000,
    desc: 'How long a tool waits for the service it calls before it answers `unavailable`.',
  }),
};

export type McpServerConfig = Config<typeof mcpServerConfigSpec>;
