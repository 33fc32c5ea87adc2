/** JSON Schemas of the public events, one per kind; a test checks them against `PublicEvent` both ways. */
import { CONSENT_PURPOSES } from './contacts.dto';
import { sampleEventData } from './event-samples';
import { EVENT_KINDS, EventKind, HANDOVER_REASONS, PublicEvent } from './events';

export type JsonSchema = Record<string, unknown>;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const TIMESTAMP: JsonSchema = {
  type: 'string',
  format: 'date-time',
  description: 'UTC, microseconds, explicit offset.',
  example: '2026-11-21T10:04:05.123456+00:00',
};
const nullableString = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

/** An object schema whose every property is required (the events always carry every field, `null` when empty). */
function object(description: string, properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', description, required: Object.keys(properties), properties };
}

/** `PaymentIntentSucceeded`-style names: `message.received` → `MessageReceived`. */
export function eventSchemaName(kind: EventKind): string {
  return kind
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** The parts the payloads share. */
const PARTS: Record<string, JsonSchema> = {
  EventContact: object('The customer, without consents.', {
    ref: nullableString("The business's own id of the customer; null for one met only in the chat."),
    svc_id: { type: 'integer', description: "The service's id of the customer." },
    name: { type: 'string' },
    email: nullableString('Email address.'),
    email_confirmed: { type: 'boolean' },
    phone: nullableString('Phone number in E.164 form.'),
    phone_confirmed: { type: 'boolean' },
    lang: nullableString('BCP 47 language tag.'),
    created_at: TIMESTAMP,
    updated_at: TIMESTAMP,
  }),
  EventConsent: object('A consent as stored: its identity is purpose, given_at and source.', {
    purpose: { type: 'string', enum: [...CONSENT_PURPOSES] },
    granted: { type: 'boolean', description: 'false records a refusal.' },
    text: { type: 'string', description: 'The exact words the person agreed to.' },
    lang: nullableString('BCP 47 tag of the language of `text`.'),
    given_at: TIMESTAMP,
    source: { type: 'string' },
    withdrawn_at: { ...TIMESTAMP, type: ['string', 'null'] },
    withdrawn_by: nullableString('Who withdrew it.'),
    origin: { type: 'string', enum: ['api', 'chat'], description: 'Recorded through the API or in a conversation.' },
    active: { type: 'boolean', description: 'Granted and not withdrawn.' },
  }),
  EventConversation: object('The conversation the event comes from.', {
    id: { type: 'integer' },
    channel: { type: 'string', description: '`web`, `email` or `whatsapp`.' },
    url: { type: 'string', format: 'uri', description: 'The conversation in the web application.' },
  }),
  EventReach: object('How the customer can be reached for the handover.', {
    method: { type: 'string', enum: ['email', 'whatsapp', ''], description: 'The channel the customer chose; empty when none.' },
    email: { type: 'string' },
    email_verified: { type: 'boolean' },
    whatsapp: { type: 'string' },
    whatsapp_verified: { type: 'boolean' },
    consent: { type: 'boolean', description: 'The customer agreed to be contacted that way.' },
  }),
  HandoverReason: { type: 'string', enum: [...HANDOVER_REASONS], description: 'Why a person is needed.' },
};

const message = (author: boolean): JsonSchema =>
  object('A message of the conversation.', {
    id: { type: 'integer' },
    text: { type: 'string' },
    at: TIMESTAMP,
    ...(author ? { author: { type: 'string', enum: ['assistant', 'team'] } } : {}),
  });

/** `data` of each kind, as the contract's table states it. */
const DATA: Record<EventKind, { description: string; properties: Record<string, JsonSchema> }> = {
  'contact.confirmed': {
    description: 'A customer confirmed an email address or phone number in a conversation.',
    properties: {
      contact: ref('EventContact'),
      confirmed: { type: 'string', enum: ['email', 'phone'] },
      conversation: ref('EventConversation'),
    },
  },
  'consent.granted': {
    description: 'A customer gave a consent in a conversation.',
    properties: { contact: ref('EventContact'), consent: ref('EventConsent'), conversation: ref('EventConversation') },
  },
  'consent.withdrawn': {
    description: 'A consent was withdrawn (in a conversation, or through the API: then `conversation` is null).',
    properties: {
      contact: ref('EventContact'),
      consent: ref('EventConsent'),
      conversation: { oneOf: [ref('EventConversation'), { type: 'null' }] },
    },
  },
  'handover.created': {
    description: 'The assistant handed the conversation over to the team.',
    properties: {
      contact: ref('EventContact'),
      reach: ref('EventReach'),
      message: { type: 'string', description: "The customer's request, in their words." },
      reason: ref('HandoverReason'),
      conversation: ref('EventConversation'),
    },
  },
  'conversation.needs_human': {
    description: 'A conversation needs a person from the team.',
    properties: { contact: ref('EventContact'), reason: ref('HandoverReason'), conversation: ref('EventConversation') },
  },
  'message.received': {
    description: 'A customer wrote a message.',
    properties: { contact: ref('EventContact'), message: message(false), conversation: ref('EventConversation') },
  },
  'message.sent': {
    description: 'The assistant or the team answered.',
    properties: { contact: ref('EventContact'), message: message(true), conversation: ref('EventConversation') },
  },
};

/** A sample event of a kind at a fixed moment (stable documents). */
export function exampleEvent(kind: EventKind): PublicEvent {
  const data = sampleEventData(kind, { now: new Date('2026-11-21T10:04:05.123Z'), n: 42, appUrl: 'https://app.example.com' });
  return { id: 1287, event: kind, at: '2026-11-21T10:04:05.123456+00:00', data } as PublicEvent;
}

/** The events' component schemas: shared parts, `{Kind}Data` and `{Kind}Event`, and the `EventDto` union. */
export function eventSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = { ...PARTS };
  for (const kind of EVENT_KINDS) {
    const name = eventSchemaName(kind);
    schemas[`${name}Data`] = object(DATA[kind].description, DATA[kind].properties);
    schemas[`${name}Event`] = {
      ...object(`\`${kind}\`: ${DATA[kind].description}`, {
        id: { type: 'integer', description: 'Increasing per account; the same id in the feed and in every webhook attempt.' },
        event: { type: 'string', enum: [kind] },
        at: { ...TIMESTAMP, description: 'When it happened (UTC, microseconds).' },
        data: ref(`${name}Data`),
      }),
      example: exampleEvent(kind),
    };
  }
  schemas['EventDto'] = {
    description: 'An event: `event` names its kind, which decides the shape of `data`.',
    oneOf: EVENT_KINDS.map((kind) => ref(`${eventSchemaName(kind)}Event`)),
    discriminator: {
      propertyName: 'event',
      mapping: Object.fromEntries(EVENT_KINDS.map((kind) => [kind, `#/components/schemas/${eventSchemaName(kind)}Event`])),
    },
  };
  return schemas;
}
