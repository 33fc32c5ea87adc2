import { EventConsent, EventContact, EventConversation, EventDataByKind, EventKind } from './events';

export interface SampleOptions {
  /** The web application's address, for `conversation.url`. */
  appUrl?: string;
  /** Makes ids (customer, conversation, message) distinct between samples. */
  n?: number;
  /** The moment the sample happened; its timestamps are around it. */
  now?: Date;
}

/** UTC, microseconds, `+00:00`: the contract's timestamp. */
function stamp(date: Date, micros: number): string {
  return `${date.toISOString().slice(0, 19)}.${String(date.getUTCMilliseconds() * 1000 + (micros % 1000)).padStart(6, '0')}+00:00`;
}

/** A realistic `data` of each event kind, for `admin trigger` and tests. */
export function sampleEventData<K extends EventKind>(kind: K, options: SampleOptions = {}): EventDataByKind[K] {
  const n = options.n ?? 1;
  const now = options.now ?? new Date();
  const earlier = (ms: number) => new Date(now.getTime() - ms);
  const appUrl = (options.appUrl ?? 'https://app.example.com').replace(/\/$/, '');
  const contact: EventContact = {
    ref: `cust-${1000 + n}`,
    svc_id: 1000 + n,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    email_confirmed: true,
    phone: '+447700900123',
    phone_confirmed: false,
    lang: 'en',
    created_at: stamp(earlier(86_400_000), 512_907),
    updated_at: stamp(earlier(60_000), 123_456),
  };
  const conversation: EventConversation = { id: 5000 + n, channel: 'web', url: `${appUrl}/conversations/${5000 + n}` };
  const consent: EventConsent = {
    purpose: 'reply_whatsapp',
    granted: true,
    text: 'I agree to be contacted on WhatsApp about my enquiry.',
    lang: 'en',
    given_at: stamp(earlier(30_000), 654_321),
    source: 'chat',
    withdrawn_at: null,
    withdrawn_by: null,
    origin: 'chat',
    active: true,
  };
  const message = { id: 90_000 + n, text: 'Is the flat on Baker Street still available in March?', at: stamp(earlier(1_000), 250_001) };
  const samples: { [P in EventKind]: EventDataByKind[P] } = {
    'contact.confirmed': { contact, confirmed: 'email', conversation },
    'consent.granted': { contact, consent, conversation },
    'consent.withdrawn': {
      contact,
      consent: { ...consent, withdrawn_at: stamp(now, 777_001), withdrawn_by: 'customer', active: false },
      conversation: null,
    },
    'handover.created': {
      contact,
      reach: {
        method: 'whatsapp',
        email: contact.email ?? '',
        email_verified: true,
        whatsapp: contact.phone ?? '',
        whatsapp_verified: false,
        consent: true,
      },
      message: 'Can someone call me back about the viewing?',
      reason: 'customer_asked',
      conversation,
    },
    'conversation.needs_human': { contact, reason: 'nobody_answered', conversation },
    'message.received': { contact, message, conversation },
    'message.sent': {
      contact,
      message: {
        id: 90_001 + n,
        text: 'Yes, it is available from 1 March. Would you like to book a viewing?',
        at: stamp(now, 100_200),
        author: 'assistant',
      },
      conversation,
    },
  };
  return samples[kind];
}
