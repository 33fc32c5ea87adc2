/** The services a tool calls (the gateway for `whoami`), by the name their signed context is addressed to. */
export const TOOL_UPSTREAMS = [
  'gateway',
  'contacts-api',
  'identity-issuer',
  'knowledge-api',
  'events-api',
  'webhook-dispatcher',
  'chat',
] as const;
export type ToolUpstream = (typeof TOOL_UPSTREAMS)[number];

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A tool of the API's operations: its name and words for an agent, and the REST operation it stands for. */
export interface ParityToolSpec {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** The REST operation in the OpenAPI document (schemas; and the route called unless `via`). */
  operation: { method: 'GET' | 'PUT' | 'POST' | 'DELETE'; path: string };
  upstream: ToolUpstream;
  /** The route to call when it is not the REST path itself (the gateway answers whoami on an internal route). */
  via?: string;
  /** Tool argument names for the operation's path parameters (snake_case as the rest of the API). */
  renames?: Record<string, string>;
  /** What the text content says when the REST answer has no body (204). */
  done?: string;
}

export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const UPSERT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const CREATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

export const WRITES_NOTE = "Counts as one write in the key's limits (120 a minute, 3,000 an hour, shared with the REST API).";

/** Every operation of the REST API, as MCP tools. Their result is exactly the REST response body. */
export const PARITY_TOOLS: readonly ParityToolSpec[] = [
  {
    name: 'whoami',
    title: 'Who am I',
    description:
      'The account and API key this connection uses, the application address (app_url) and the public widget id. Call it first to check the connection.',
    annotations: READ,
    operation: { method: 'GET', path: '/whoami' },
    upstream: 'gateway',
    via: '/internal/whoami',
  },
  {
    name: 'get_contact',
    title: 'Get a customer',
    description:
      "One customer by the business's own reference (`ref`), with their details and every consent (active or withdrawn). not_found when no customer has this ref.",
    annotations: READ,
    operation: { method: 'GET', path: '/contacts/{ref}' },
    upstream: 'contacts-api',
  },
  {
    name: 'find_contacts',
    title: 'Find customers by email or phone',
    description:
      'Customers with this email (case-insensitive) or this phone (E.164, e.g. +447700900123). Give exactly one of `email` or `phone`. May return several customers or none.',
    annotations: READ,
    operation: { method: 'GET', path: '/contacts' },
    upstream: 'contacts-api',
  },
  {
    name: 'upsert_contact',
    title: 'Create or update a customer',
    description: `Creates the customer with this \`ref\` or updates it: fields left out stay as they are; \`email\`/\`phone\`/\`lang\` null clears them. \`svc_id\` attaches the ref to a customer the chat met. \`consents\` records consents (a known one only changes by being withdrawn). Returns the whole customer. ${WRITES_NOTE}`,
    annotations: UPSERT,
    operation: { method: 'PUT', path: '/contacts/{ref}' },
    upstream: 'contacts-api',
  },
  {
    name: 'delete_contact',
    title: 'Erase a customer',
    description: `Erases the customer with this \`ref\`: their consents, their passes and their name, email and phone in past events and chat records. Cannot be undone. ${WRITES_NOTE}`,
    annotations: DELETE,
    operation: { method: 'DELETE', path: '/contacts/{ref}' },
    upstream: 'contacts-api',
    done: 'The customer was erased.',
  },
  {
    name: 'create_identity_pass',
    title: 'Create a same-browser pass',
    description: `A signed pass (valid 30 days) for the customer with this \`ref\`: put it in the chat embed (window.SvcChat.identity) of that customer's page only, so the chat knows who they are. ${WRITES_NOTE}`,
    annotations: CREATE,
    operation: { method: 'POST', path: '/contacts/{ref}/identity' },
    upstream: 'identity-issuer',
  },
  {
    name: 'list_knowledge_pieces',
    title: 'List knowledge pieces',
    description:
      'The knowledge pieces the assistant answers from, ordered by external_ref, a page at a time (`after` = the previous `next_after`; `limit` up to 200). With `external_ref`, just that piece (or none).',
    annotations: READ,
    operation: { method: 'GET', path: '/knowledge' },
    upstream: 'knowledge-api',
  },
  {
    name: 'upsert_knowledge_piece',
    title: 'Create or update a knowledge piece',
    description: `Creates or replaces the piece with this \`external_ref\`: a \`heading\` (1–300 characters), a \`text\` (15–8,000 characters) the assistant answers from, and an optional http(s) \`url\` it links to. ${WRITES_NOTE}`,
    annotations: UPSERT,
    operation: { method: 'PUT', path: '/knowledge/{externalRef}' },
    upstream: 'knowledge-api',
    renames: { externalRef: 'external_ref' },
  },
  {
    name: 'bulk_upsert_knowledge_pieces',
    title: 'Create or update up to 50 knowledge pieces',
    description: `Creates or replaces 1 to 50 pieces at once, all or nothing: one invalid item (or a repeated external_ref) and nothing is written; the error names each problem as items[i].field. ${WRITES_NOTE} (once for the whole batch)`,
    annotations: UPSERT,
    operation: { method: 'POST', path: '/knowledge/bulk' },
    upstream: 'knowledge-api',
  },
  {
    name: 'delete_knowledge_piece',
    title: 'Delete a knowledge piece',
    description: `Deletes the piece with this \`external_ref\`; the assistant stops answering from it. ${WRITES_NOTE}`,
    annotations: DELETE,
    operation: { method: 'DELETE', path: '/knowledge/{externalRef}' },
    upstream: 'knowledge-api',
    renames: { externalRef: 'external_ref' },
    done: 'The knowledge piece was deleted.',
  },
  {
    name: 'list_events',
    title: 'Read the event feed',
    description:
      'What happened in the chat (messages, consents, confirmations, hand-overs), oldest first, from the event with id `after` on (default 0), `limit` 1 to 200. Read on with after = `next_after` while `more` is true; ids only grow, so no event is skipped.',
    annotations: READ,
    operation: { method: 'GET', path: '/events' },
    upstream: 'events-api',
  },
  {
    name: 'list_webhooks',
    title: 'List webhook endpoints',
    description: "The account's webhook endpoints (without their secrets).",
    annotations: READ,
    operation: { method: 'GET', path: '/webhooks' },
    upstream: 'webhook-dispatcher',
  },
  {
    name: 'register_webhook',
    title: 'Register a webhook endpoint',
    description: `Registers an https \`url\` to receive signed events: \`events\` lists the kinds (null or left out: every kind, including later ones). The answer holds the signing \`secret\`, shown this once: keep it. At most 10 endpoints. ${WRITES_NOTE}`,
    annotations: CREATE,
    operation: { method: 'POST', path: '/webhooks' },
    upstream: 'webhook-dispatcher',
  },
  {
    name: 'delete_webhook',
    title: 'Delete a webhook endpoint',
    description: `Deletes the endpoint with this \`id\`; its pending deliveries stop. ${WRITES_NOTE}`,
    annotations: DELETE,
    operation: { method: 'DELETE', path: '/webhooks/{id}' },
    upstream: 'webhook-dispatcher',
    done: 'The webhook endpoint was deleted.',
  },
];
