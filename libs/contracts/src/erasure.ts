/**
 * What erasure leaves of an event's `data`, for the feed and webhook bodies alike: `contact` loses its name,
 * email and phone, a `reach` its email and WhatsApp number; the rest and the key order stay. Idempotent.
 */
export const ERASED_CONTACT_FIELDS = { name: '', email: null, phone: null } as const;
export const ERASED_REACH_FIELDS = { email: '', whatsapp: '' } as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `data` of a public event as it is after its customer's erasure (a new object; `data` is not changed). */
export function eraseEventData<T>(data: T): T {
  if (!isObject(data)) return data;
  const erased: Record<string, unknown> = { ...data };
  if (isObject(data['contact'])) erased['contact'] = { ...data['contact'], ...ERASED_CONTACT_FIELDS };
  if (isObject(data['reach'])) erased['reach'] = { ...data['reach'], ...ERASED_REACH_FIELDS };
  return erased as T;
}

/** The customer (`data.contact.svc_id`) an event's `data` is about, if it names one. */
export function eventContactSvcId(data: unknown): number | null {
  if (!isObject(data) || !isObject(data['contact'])) return null;
  const svcId = data['contact']['svc_id'];
  return typeof svcId === 'number' && Number.isSafeInteger(svcId) ? svcId : null;
}
