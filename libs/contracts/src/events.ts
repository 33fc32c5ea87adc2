/** Public events (feed and webhooks) and internal domain messages (RabbitMQ): one discriminated union each. */

export const EVENT_KINDS = [
  'contact.confirmed',
  'consent.granted',
  'consent.withdrawn',
  'handover.created',
  'conversation.needs_human',
  'message.received',
  'message.sent',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}

export const HANDOVER_REASONS = ['nobody_answered', 'customer_asked', 'assistant_unsure'] as const;
export type HandoverReason = (typeof HANDOVER_REASONS)[number];

/** The customer fields the business sets (everything but ref, svc_id and the timestamps). */
export interface CustomerFields {
  name: string;
  email: string | null;
  email_confirmed: boolean;
  phone: string | null;
  phone_confirmed: boolean;
  lang: string | null;
}

/** `data.contact`: the customer without consents. */
export interface EventContact extends CustomerFields {
  ref: string | null;
  svc_id: number;
  created_at: string;
  updated_at: string;
}

export interface EventConsent {
  purpose: 'reply_email' | 'reply_whatsapp' | 'future_email' | 'future_whatsapp';
  granted: boolean;
  text: string;
  lang: string | null;
  given_at: string;
  source: string;
  withdrawn_at: string | null;
  withdrawn_by: string | null;
  origin: 'api' | 'chat';
  active: boolean;
}

export interface EventConversation {
  id: number;
  channel: string;
  url: string;
}

export interface EventReach {
  method: 'email' | 'whatsapp' | '';
  email: string;
  email_verified: boolean;
  whatsapp: string;
  whatsapp_verified: boolean;
  consent: boolean;
}

export interface EventDataByKind {
  'contact.confirmed': { contact: EventContact; confirmed: 'email' | 'phone'; conversation: EventConversation };
  'consent.granted': { contact: EventContact; consent: EventConsent; conversation: EventConversation };
  'consent.withdrawn': { contact: EventContact; consent: EventConsent; conversation: EventConversation | null };
  'handover.created': {
    contact: EventContact;
    reach: EventReach;
    message: string;
    reason: HandoverReason;
    conversation: EventConversation;
  };
  'conversation.needs_human': { contact: EventContact; reason: HandoverReason; conversation: EventConversation };
  'message.received': { contact: EventContact; message: { id: number; text: string; at: string }; conversation: EventConversation };
  'message.sent': {
    contact: EventContact;
    message: { id: number; text: string; at: string; author: 'assistant' | 'team' };
    conversation: EventConversation;
  };
}

/** A public event as the feed serves it and a webhook delivers it. */
export type PublicEvent = { [K in EventKind]: { id: number; event: K; at: string; data: EventDataByKind[K] } }[EventKind];

/** Internal messages that are not public events. */
export interface InternalDataByKind {
  /** A customer was erased: their personal data leaves retained events and chat records. */
  'contact.erased': { svc_id: number; ref: string | null };
  /** A customer was written (created, updated, a ref attached, confirmed): the chat's model of customers follows. */
  'contact.changed': { contact: EventContact };
  /** A knowledge piece was written or deleted: the assistant's caches refresh. */
  'knowledge.changed': { external_ref: string; change: 'upserted' | 'deleted' };
}
export type InternalKind = keyof InternalDataByKind;

export interface DomainDataByKind extends EventDataByKind, InternalDataByKind {}
export type DomainKind = keyof DomainDataByKind;

/** A domain exchange message, routed by `kind`; consumers deduplicate on `id`. */
export type DomainMessage<K extends DomainKind = DomainKind> = {
  [P in K]: { id: string; kind: P; account_id: string; at: string; data: DomainDataByKind[P] };
}[K];

/** What events-api publishes on the events exchange once an event has its public id. */
export interface RecordedEvent {
  account_id: string;
  event_id: string;
  event: PublicEvent;
}
