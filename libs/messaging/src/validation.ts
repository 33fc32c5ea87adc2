import { DomainKind, DomainMessage, EVENT_KINDS } from '@svc/contracts';
import { InvalidMessageError } from './transport';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ZONED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;
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
  if (typeof payload['at'] !== 'string' || !ZONED_TIMESTAMP.test(payload['at']) || Number.isNaN(Date.parse(payload['at']))) problems.push('at is not a timestamp with a zone');
  const data = payload['data'];
  if (!isObject(data)) problems.push('data is not an object');
  else if ((EVENT_KINDS as readonly unknown[]).includes(payload['kind'])) {
    const contact = data['contact'];
    if (!isObject(contact) || typeof contact['svc_id'] !== 'number') problems.push('data.contact.svc_id is missing');
  } else if (payload['kind'] === 'contact.erased' && typeof data['svc_id'] !== 'number') problems.push('data.svc_id is missing');
  if (problems.length > 0) throw new InvalidMessageError(`invalid domain message: ${problems.join('; ')}`);
  return payload as DomainMessage<K>;
}
