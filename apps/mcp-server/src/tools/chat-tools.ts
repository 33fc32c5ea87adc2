import {
  AnalyticsQueryDto,
  AssistantPreviewDto,
  CreateBookingDto,
  ListBookingsQueryDto,
  ListConversationsQueryDto,
  TeachAssistantDto,
  TeamReplyDto,
  UpdateBookingDto,
  WhatsappTemplateDto,
  WithdrawConsentDto,
} from '@svc/contracts';
import { CREATE, READ, ToolAnnotations, ToolUpstream, WRITES_NOTE } from './parity-tools';

type DtoClass = new () => object;

/** A tool on the console's back-office routes, its input schema read from their DTOs. */
export interface ChatToolSpec {
  name: string;
  /** The service whose internal route it calls (default: the chat). */
  upstream?: ToolUpstream;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  method: 'GET' | 'POST' | 'PATCH';
  /** The chat's route, `{param}` for each path argument. */
  path: string;
  /** Tool argument → path parameter (a positive integer id). */
  pathArguments?: Record<string, string>;
  query?: DtoClass;
  body?: DtoClass;
  /** Body fields the tool sets itself, left out of its input (`created_by: agent`). */
  fixed?: Record<string, unknown>;
  /** Counts in the key's write limits: it changes something, or costs like a write (the assistant's preview). */
  write: boolean;
}

const ID = { type: 'integer', minimum: 1 };

export const CHAT_TOOLS: readonly ChatToolSpec[] = [
  {
    name: 'list_conversations',
    title: 'List conversations (inbox)',
    description:
      'The inbox: conversations with their customer and last message, newest activity first. `needs_human` "true" keeps those waiting for a person; `channel` web or whatsapp; page on with after = `next_after` while `more` is true (`limit` 1 to 200, default 50).',
    annotations: READ,
    method: 'GET',
    path: '/internal/chat/conversations',
    query: ListConversationsQueryDto,
    write: false,
  },
  {
    name: 'get_conversation',
    title: 'Read a conversation',
    description:
      "One conversation with every message, oldest first (author customer, assistant, team or system). not_found for an id that is not this account's.",
    annotations: READ,
    method: 'GET',
    path: '/internal/chat/conversations/{id}',
    pathArguments: { conversation_id: 'id' },
    write: false,
  },
  {
    name: 'send_reply',
    title: 'Reply to a customer',
    description: `Sends \`text\` to the customer in conversation \`conversation_id\` as the business's team: shown in their chat at once and reported as message.sent (author team); it answers a customer waiting for a person. ${WRITES_NOTE}`,
    annotations: CREATE,
    method: 'POST',
    path: '/internal/chat/conversations/{id}/replies',
    pathArguments: { conversation_id: 'id' },
    body: TeamReplyDto,
    write: true,
  },
  {
    name: 'send_whatsapp_template',
    title: 'Send an approved WhatsApp template',
    description: `Sends the approved template \`template\` (language \`lang\`, e.g. en or en_US, with its \`params\`) to the customer of WhatsApp conversation \`conversation_id\`. WhatsApp allows free-form replies only within 24 hours of the customer's last message; after that only a template, and only when the customer has an active reply_whatsapp or future_whatsapp consent and a phone number: otherwise a conflict error says why. ${WRITES_NOTE}`,
    annotations: CREATE,
    method: 'POST',
    path: '/internal/chat/conversations/{id}/whatsapp-template',
    pathArguments: { conversation_id: 'id' },
    body: WhatsappTemplateDto,
    write: true,
  },
  {
    name: 'list_consents',
    title: "List a customer's consents (with ids)",
    description:
      "Every consent of the customer `svc_id` (the `svc_id` of a conversation's or a contact's `contact`), each with the `id` that withdraw_consent takes, its purpose, text, source and whether it is active.",
    annotations: READ,
    upstream: 'contacts-api',
    method: 'GET',
    path: '/internal/contacts/by-svc-id/{svcId}/consents',
    pathArguments: { svc_id: 'svcId' },
    write: false,
  },
  {
    name: 'withdraw_consent',
    title: 'Withdraw a consent',
    description: `Withdraws consent \`consent_id\` (from list_consents) of customer \`svc_id\` on behalf of the business's team: reported as consent.withdrawn with withdrawn_by team. An already withdrawn consent is left as it is (no new event). ${WRITES_NOTE}`,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    upstream: 'contacts-api',
    method: 'POST',
    path: '/internal/contacts/by-svc-id/{svcId}/consents/{consentId}/withdraw',
    pathArguments: { svc_id: 'svcId', consent_id: 'consentId' },
    body: WithdrawConsentDto,
    fixed: { withdrawn_by: 'team', conversation: null },
    write: true,
  },
  {
    name: 'search_knowledge',
    title: 'What would the assistant answer?',
    description: `Asks the assistant a customer's \`question\` (optional \`lang\`: en, de, fr, es) and returns what it would answer, the knowledge piece it would cite and whether it would offer a person. Nothing is written and no customer sees it. Running the assistant costs like a write: ${WRITES_NOTE}`,
    annotations: READ,
    method: 'POST',
    path: '/internal/chat/assistant/preview',
    body: AssistantPreviewDto,
    write: true,
  },
  {
    name: 'teach_assistant',
    title: 'Teach the assistant what answers a question',
    description: `From now on the assistant answers a customer's \`question\` (and questions like it) from the knowledge piece \`external_ref\`, or, with \`external_ref\` null, says no piece answers it and offers a person. Optional \`lang\`: the BCP 47 tag of the question's language (else its words tell, or the pieces'). The same question taught again replaces what was taught; not_found for a piece the account does not have. Returns the taught item {id, question, lang, external_ref, created_at, created_by}. ${WRITES_NOTE}`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    upstream: 'knowledge-api',
    method: 'POST',
    path: '/internal/knowledge/taught',
    body: TeachAssistantDto,
    write: true,
  },
  {
    name: 'list_bookings',
    title: 'List bookings',
    description:
      'Bookings oldest first, optionally one `status` (requested, confirmed, declined, cancelled); page on with after = `next_after` while `more` is true.',
    annotations: READ,
    method: 'GET',
    path: '/internal/chat/bookings',
    query: ListBookingsQueryDto,
    write: false,
  },
  {
    name: 'create_booking',
    title: 'Create a booking',
    description: `Books \`starts_at\` (ISO 8601 with a zone, in the future) for the customer of conversation \`conversation_id\`, optionally for a listing (\`listing_ref\`: a knowledge external_ref) with a \`note\`. It starts as requested, is recorded as created by an agent, and the customer is told in the conversation. ${WRITES_NOTE}`,
    annotations: CREATE,
    method: 'POST',
    path: '/internal/chat/bookings',
    body: CreateBookingDto,
    fixed: { created_by: 'agent' },
    write: true,
  },
  {
    name: 'update_booking',
    title: 'Confirm, decline or cancel a booking',
    description: `Sets booking \`booking_id\` to \`status\`: requested → confirmed, declined or cancelled; confirmed → cancelled (anything else is a conflict). The customer is told in the conversation. ${WRITES_NOTE}`,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    method: 'PATCH',
    path: '/internal/chat/bookings/{id}',
    pathArguments: { booking_id: 'id' },
    body: UpdateBookingDto,
    write: true,
  },
  {
    name: 'get_analytics',
    title: 'Analytics over a date range',
    description:
      'Per UTC day from `from` to `to` (YYYY-MM-DD, both included, at most 366 days): conversations by channel, messages, conversations the assistant closed alone, hand-overs by reason, median time to the first team reply, confirmations, consents by purpose, bookings; and the most cited pieces and most frequent unanswered questions. The same figures as the console.',
    annotations: READ,
    method: 'GET',
    path: '/internal/chat/analytics',
    query: AnalyticsQueryDto,
    write: false,
  },
];

export { ID as PATH_ID_SCHEMA };
