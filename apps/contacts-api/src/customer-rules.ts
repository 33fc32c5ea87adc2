/** The rules of a customer PUT as pure functions (no I/O): field merges, confirmation and consents. */
import {
  canonicalLanguageTag,
  ConsentInputDto,
  CustomerFields,
  ErrorDetail,
  isActiveConsent,
  StoredConsent,
  UpsertContactDto,
} from '@svc/contracts';
import { parseTimestampInput } from '@svc/persistence';

/** A customer created by a PUT starts like this; the request's fields apply on top. */
export const NEW_CUSTOMER: Readonly<CustomerFields> = {
  name: '',
  email: null,
  email_confirmed: false,
  phone: null,
  phone_confirmed: false,
  lang: null,
};

export type CustomerChanges = Omit<UpsertContactDto, 'svc_id' | 'consents'>;

export interface MergedCustomer {
  fields: CustomerFields;
  /** Whether anything differs from the stored customer (no write, no new updated_at otherwise). */
  changed: boolean;
  problems: ErrorDetail[];
}

/** Addresses are compared without case, like lookups: re-sending `Ada@X.com` for `ada@x.com` is the same address. */
const sameEmail = (a: string | null, b: string | null): boolean => a?.toLowerCase() === b?.toLowerCase();
const samePhone = (a: string | null, b: string | null): boolean => a === b;

/** An email or phone and its confirmation after a PUT: a changed value is unconfirmed unless confirmed with it. */
function contactPoint(
  field: 'email' | 'phone',
  current: CustomerFields,
  changes: CustomerChanges,
  problems: ErrorDetail[],
): { value: string | null; confirmed: boolean } {
  const confirmedField = `${field}_confirmed` as const;
  const stored = { value: current[field], confirmed: current[confirmedField] };
  const sent = { value: changes[field], confirmed: changes[confirmedField] };
  const same = field === 'email' ? sameEmail : samePhone;
  const value = sent.value === undefined ? stored.value : sent.value;
  if (value === null) {
    if (sent.confirmed === true)
      problems.push({
        path: `${field}_confirmed`,
        message: `${field}_confirmed cannot be true without ${field === 'email' ? 'an email' : 'a phone'}`,
      });
    return { value, confirmed: false };
  }
  if (sent.confirmed !== undefined) return { value, confirmed: sent.confirmed };
  return { value, confirmed: same(value, stored.value) ? stored.confirmed : false };
}

/** Applies a PUT's customer fields to the stored ones: omitted fields stay, `null` clears. */
export function mergeCustomer(current: CustomerFields, changes: CustomerChanges): MergedCustomer {
  const problems: ErrorDetail[] = [];
  const email = contactPoint('email', current, changes, problems);
  const phone = contactPoint('phone', current, changes, problems);
  const lang = changes.lang === undefined ? current.lang : changes.lang === null ? null : canonicalLanguageTag(changes.lang);
  const fields: CustomerFields = {
    name: changes.name ?? current.name,
    email: email.value,
    email_confirmed: email.confirmed,
    phone: phone.value,
    phone_confirmed: phone.confirmed,
    lang,
  };
  const changed = (Object.keys(fields) as Array<keyof CustomerFields>).some((key) => fields[key] !== current[key]);
  return { fields, changed, problems };
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:Z|([+-])(\d{2}):?(\d{2}))$/;

/** Exact microseconds since the epoch of an accepted timestamp: two spellings of one instant give one number. */
export function instantMicros(timestamp: string): bigint {
  const match = TIMESTAMP.exec(timestamp);
  if (!match) throw new Error(`not a validated timestamp: ${JSON.stringify(timestamp)}`);
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] = match;
  const local = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) / 1000;
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60);
  return BigInt(local - offset) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
}

const TIMESTAMP_MESSAGE =
  'must be an ISO 8601 date-time with Z or an offset and at most microseconds, such as 2026-11-21T10:04:05.123456+00:00';

/** What the DTO cannot check about sent consents: timestamps with a zone, and withdrawal fields that fit together. */
export function consentProblems(consents: ConsentInputDto[]): ErrorDetail[] {
  return consents.flatMap((consent, index) => {
    const at = `consents[${index}]`;
    const problems: ErrorDetail[] = [];
    const givenAt = parseTimestampInput(consent.given_at);
    if (!givenAt) problems.push({ path: `${at}.given_at`, message: `given_at ${TIMESTAMP_MESSAGE}` });
    const withdrawnAt = consent.withdrawn_at == null ? null : parseTimestampInput(consent.withdrawn_at);
    if (withdrawnAt === undefined) problems.push({ path: `${at}.withdrawn_at`, message: `withdrawn_at ${TIMESTAMP_MESSAGE}` });
    if (givenAt && withdrawnAt && instantMicros(withdrawnAt) < instantMicros(givenAt)) {
      problems.push({ path: `${at}.withdrawn_at`, message: 'withdrawn_at must not be before given_at' });
    }
    if (consent.withdrawn_by != null && consent.withdrawn_at == null) {
      problems.push({ path: `${at}.withdrawn_by`, message: 'withdrawn_by needs withdrawn_at' });
    }
    return problems;
  });
}

/** A withdrawal of a stored consent, named by its identity as stored. */
export interface Withdrawal {
  purpose: StoredConsent['purpose'];
  given_at: string;
  source: string;
  withdrawn_at: string;
  withdrawn_by: string | null;
}

export interface ConsentPlan {
  insert: StoredConsent[];
  withdraw: Withdrawal[];
}

/** The identity of a consent: purpose + given_at as an instant to the microsecond + source. */
function identity(consent: Pick<StoredConsent, 'purpose' | 'given_at' | 'source'>): string {
  return JSON.stringify([consent.purpose, instantMicros(consent.given_at).toString(), consent.source]);
}

/**
 * What sent consents do to the stored ones (the contract's "Consents"): a new identity is recorded, a known
 * one can only be withdrawn. Expects timestamps that passed `consentProblems`.
 */
export function planConsents(stored: StoredConsent[], sent: ConsentInputDto[]): ConsentPlan {
  const known = new Map(stored.map((consent) => [identity(consent), consent]));
  const added = new Map<string, StoredConsent>();
  const withdrawn = new Map<string, Withdrawal>();
  for (const input of sent) {
    const key = identity(input);
    const existing = known.get(key);
    const pending = added.get(key);
    if (existing) {
      if (input.withdrawn_at != null && isActiveConsent(existing) && !withdrawn.has(key)) {
        const { purpose, given_at, source } = existing;
        withdrawn.set(key, { purpose, given_at, source, withdrawn_at: input.withdrawn_at, withdrawn_by: input.withdrawn_by ?? null });
      }
    } else if (pending) {
      if (input.withdrawn_at != null && isActiveConsent(pending)) {
        added.set(key, { ...pending, withdrawn_at: input.withdrawn_at, withdrawn_by: input.withdrawn_by ?? null });
      }
    } else {
      added.set(key, {
        purpose: input.purpose,
        granted: input.granted ?? true,
        text: input.text,
        lang: input.lang == null ? null : canonicalLanguageTag(input.lang),
        given_at: input.given_at,
        source: input.source,
        withdrawn_at: input.withdrawn_at ?? null,
        withdrawn_by: input.withdrawn_at == null ? null : (input.withdrawn_by ?? null),
        origin: 'api',
      });
    }
  }
  return { insert: [...added.values()], withdraw: [...withdrawn.values()] };
}
