import type { EventKind } from '@svc/contracts';

/** The event kinds with their labels (typed against the contract's list, so a new kind must be named here). */
export const EVENT_KIND_LABELS = {
  'contact.confirmed': 'A customer confirmed an email or phone',
  'consent.granted': 'A consent was given in the chat',
  'consent.withdrawn': 'A consent was withdrawn',
  'handover.created': 'A customer left a way to reach them',
  'conversation.needs_human': 'A conversation needs a person',
  'message.received': 'A customer wrote',
  'message.sent': 'The assistant or the team replied',
} satisfies Record<EventKind, string>;

export const EVENT_KINDS = Object.keys(EVENT_KIND_LABELS) as EventKind[];
