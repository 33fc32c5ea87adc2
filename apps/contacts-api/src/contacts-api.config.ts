import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { Config, httpUrlOrEmpty, INTERNAL_PORT_OFFSET, millis, callerConfigSpec, SERVICE_PORTS } from '@svc/platform';

export const contactsApiConfigSpec = {
  ...callerConfigSpec('contacts-api', 'Port of contacts-api (reached through the gateway).'),
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  ...databaseConfigSpec('contacts-api owns schema `contacts` (customers, consents)'),
  CHAT_URL: httpUrlOrEmpty({
    default: `http://127.0.0.1:${SERVICE_PORTS.chat + INTERNAL_PORT_OFFSET}`,
    desc: 'The chat, whose model of customers a write of a customer waits for before it answers (read your writes, docs/adr/014-read-your-writes.md). Empty: no chat in this deployment.',
  }),
  CHAT_MODEL_WAIT_MS: millis(60_000)({
    default: 2_000,
    desc: 'How long a write of a customer waits at most for the chat to apply it (retried with a growing pause); past it the write answers and the chat follows from the broker (counted in `contacts_chat_model_missed_total`).',
  }),
};

export type ContactsApiConfig = Config<typeof contactsApiConfigSpec>;
/** The settings, validated at start: `@Inject(CONTACTS_API_CONFIG) config: ContactsApiConfig` (or a Pick of it). */
export const CONTACTS_API_CONFIG = Symbol('CONTACTS_API_CONFIG');
