import { eraseEventData, PublicEvent, RecordedEvent, RecordedEventDto } from '@svc/contracts';
import { validationProblems } from '@svc/platform';

/** A recorded event that can never be delivered (malformed): a consumer parks it instead of retrying. */
export class InvalidRecordedEventError extends Error {
  override readonly name = 'InvalidRecordedEventError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks what events-api published (the contract's `RecordedEventDto`) before anything is stored:
 * the producer may be another version. Returns the value itself, so its `event` serialises exactly
 * as it arrived.
 */
export function parseRecordedEvent(value: unknown): RecordedEvent {
  const problems = validationProblems(RecordedEventDto, value);
  if (problems.length > 0) throw new InvalidRecordedEventError(problems.join('; '));
  return value as RecordedEvent;
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
