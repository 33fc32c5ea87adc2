import { DomainKind, DomainMessage, EVENT_KINDS } from '@svc/contracts';
import { parseTimestampInput } from '@svc/persistence';
import { InvalidMessageError } from './failures';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOMAIN_KINDS: readonly string[] = [...EVENT_KINDS, 'contact.erased', 'knowledge.changed'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a domain message's envelope (and that a public event carries its contact) before a
 * consumer acts on it. A message that fails can never succeed: `InvalidMessageError` parks it.
 */
export function parseDomainMessage<K extends DomainKind = DomainKind>(payload: unknown, expected?: readonly K[]): DomainMessage<K> {
  const problems: string[] = [];
  if (!isObject(payload)) throw new InvalidMessageError('the message is not an object');
  if (typeof payload['id'] !== 'string' || !UUID.test(payload['id'])) problems.push('id is not a UUID');
  if (typeof payload['account_id'] !== 'string' || !UUID.test(payload['account_id'])) problems.push('account_id is not a UUID');
  if (typeof payload['kind'] !== 'string' || !DOMAIN_KINDS.includes(payload['kind'])) problems.push('kind is unknown');
  else if (expected && !(expected as readonly string[]).includes(payload['kind'])) problems.push(`kind ${payload['kind']} is not handled here`);
  // The same check as the API's timestamps: an offset PostgreSQL cannot store (+16:00) never reaches an append.
  if (typeof payload['at'] !== 'string' || parseTimestampInput(payload['at']) === undefined) problems.push('at is not a timestamp with a zone');
  const data = payload['data'];
  if (!isObject(data)) problems.push('data is not an object');
  else if ((EVENT_KINDS as readonly unknown[]).includes(payload['kind'])) {
    const contact = data['contact'];
    if (!isObject(contact) || typeof contact['svc_id'] !== 'number') problems.push('data.contact.svc_id is missing');
  } else if (payload['kind'] === 'contact.erased' && typeof data['svc_id'] !== 'number') problems.push('data.svc_id is missing');
  if (problems.length > 0) throw new InvalidMessageError(`invalid domain message: ${problems.join('; ')}`);
  return payload as DomainMessage<K>;
}
