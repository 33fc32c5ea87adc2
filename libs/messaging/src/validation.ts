import { DomainKind, DomainMessage, DomainMessageDto, EVENT_KINDS } from '@svc/contracts';
import { parseTimestampInput } from '@svc/persistence';
import { validationProblems } from '@svc/platform';
import { InvalidMessageError } from './failures';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks a domain message's envelope, kind, timestamp and contact; a failure throws `InvalidMessageError` (parked). */
export function parseDomainMessage<K extends DomainKind = DomainKind>(payload: unknown, expected?: readonly K[]): DomainMessage<K> {
  if (!isObject(payload)) throw new InvalidMessageError('the message is not an object');
  const problems = validationProblems(DomainMessageDto, payload);
  const { kind, at, data } = payload;
  if (problems.length === 0) {
    if (expected && !(expected as readonly unknown[]).includes(kind)) problems.push(`kind ${String(kind)} is not handled here`);
    // The same check as the API's timestamps: an offset PostgreSQL cannot store (+16:00) never reaches an append.
    if (parseTimestampInput(at as string) === undefined) problems.push('at is not a timestamp with a zone');
    const fields = data as Record<string, unknown>;
    if ((EVENT_KINDS as readonly unknown[]).includes(kind) || kind === 'contact.changed') {
      const contact = fields['contact'];
      if (!isObject(contact) || typeof contact['svc_id'] !== 'number') problems.push('data.contact.svc_id is missing');
    } else if (kind === 'contact.erased' && typeof fields['svc_id'] !== 'number') problems.push('data.svc_id is missing');
  }
  if (problems.length > 0) throw new InvalidMessageError(`invalid domain message: ${problems.join('; ')}`);
  return payload as DomainMessage<K>;
}
