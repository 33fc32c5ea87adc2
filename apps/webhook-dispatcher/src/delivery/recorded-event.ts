import { eraseEventData, PublicEvent, RecordedEvent } from '@svc/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Syntax only: a kind added after this version was built still reaches endpoints that take every kind. */
const KIND = /^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/;

/** A recorded event that can never be delivered (malformed): a consumer parks it instead of retrying. */
export class InvalidRecordedEventError extends Error {
  override readonly name = 'InvalidRecordedEventError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks what events-api published before anything is stored: the producer may be another
 * version. Returns the value itself, so its `event` serialises exactly as it arrived.
 */
export function parseRecordedEvent(value: unknown): RecordedEvent {
  if (!isObject(value)) throw new InvalidRecordedEventError('a recorded event must be an object');
  const { account_id: accountId, event } = value;
  const problems: string[] = [];
  if (typeof accountId !== 'string' || !UUID.test(accountId)) problems.push('account_id must be a UUID');
  if (!isObject(event)) {
    problems.push('event must be an object');
  } else {
    if (!Number.isSafeInteger(event['id']) || (event['id'] as number) < 1) problems.push('event.id must be a positive integer');
    if (typeof event['event'] !== 'string' || !KIND.test(event['event'])) problems.push('event.event must be an event kind');
    if (typeof event['at'] !== 'string') problems.push('event.at must be a timestamp');
    if (!isObject(event['data'])) problems.push('event.data must be an object');
  }
  if (problems.length > 0) throw new InvalidRecordedEventError(problems.join('; '));
  return value as unknown as RecordedEvent & { event: PublicEvent };
}

/** The bytes every attempt of a delivery of `event` sends: its JSON in the contract's field order. */
export function deliveryBody(event: PublicEvent): Buffer {
  // The contract's field order, whatever order the message had its keys in (it passed through jsonb).
  const { id, event: kind, at, data, ...later } = event;
  return Buffer.from(JSON.stringify({ id, event: kind, at, data, ...later }), 'utf8');
}

/**
 * A delivery body after its customer's erasure: the same event (id, kind, time, key order) with its
 * `data` blanked by the feed's rule (`eraseEventData`). Idempotent; a body that is not an event's
 * JSON is returned as it is.
 */
export function erasedDeliveryBody(body: Buffer): Buffer {
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (!isObject(event)) return body;
  return Buffer.from(JSON.stringify({ ...event, data: eraseEventData(event['data']) }), 'utf8');
}
