import { PublicEvent, RecordedEvent } from '@svc/contracts';

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
