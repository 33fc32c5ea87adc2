import type { EventContact, StoredConsent } from '@svc/contracts';
import type { Columns } from '@svc/persistence';
import type { Consents, Customers } from './schema.generated';
import { sql } from './statements';

// The SQL of customer reads, in text and plain functions: bench/contacts.bench.mjs's bare baseline runs it too.

export const CUSTOMER_COLUMNS = 'svc_id, ref, name, email, email_confirmed, phone, phone_confirmed, lang, created_at, updated_at';
export const CONSENT_COLUMNS = 'purpose, granted, text, lang, given_at, source, withdrawn_at, withdrawn_by, origin';

/** CUSTOMER_COLUMNS. bigint comes back from the driver as text; svc_ids stay far below 2^53. */
export type CustomerRow = Columns<
  Customers,
  'svc_id' | 'ref' | 'name' | 'email' | 'email_confirmed' | 'phone' | 'phone_confirmed' | 'lang' | 'created_at' | 'updated_at'
>;
/**
 * A consent's columns in a join with its customer (whose `lang` it would shadow); `purpose` and
 * `origin` are held to their values by the table's CHECK constraints.
 */
export type JoinedConsent = Columns<Consents, 'granted' | 'text' | 'given_at' | 'source' | 'withdrawn_at' | 'withdrawn_by'> &
  Pick<StoredConsent, 'purpose' | 'origin'> & { consent_lang: Consents['lang'] };
/** A customer joined with one of its consents, or with nulls when it has none. */
export type CustomerConsentRow = CustomerRow & (JoinedConsent | { purpose: null });

export const toContact = (row: CustomerRow): EventContact => ({
  ref: row.ref,
  svc_id: Number(row.svc_id),
  name: row.name,
  email: row.email,
  email_confirmed: row.email_confirmed,
  phone: row.phone,
  phone_confirmed: row.phone_confirmed,
  lang: row.lang,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const toConsent = ({
  consent_lang,
  purpose,
  granted,
  text,
  given_at,
  source,
  withdrawn_at,
  withdrawn_by,
  origin,
}: JoinedConsent): StoredConsent => ({
  purpose,
  granted,
  text,
  lang: consent_lang,
  given_at,
  source,
  withdrawn_at,
  withdrawn_by,
  origin,
});

/** The customer of account $1 whose `key` is $2; `lock` takes it FOR UPDATE (in a transaction). */
export const customerSql = (key: 'ref' | 'svc_id', lock: boolean): string =>
  `SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND ${key} = $2${lock ? ' FOR UPDATE' : ''}`;

/** How customers are looked up with their consents: the WHERE clause on `c` for `$2`. */
const LOOKUPS = {
  ref: 'c.ref = $2',
  email: 'lower(c.email) = lower($2)',
  phone: 'c.phone = $2',
} as const;
export type CustomerLookup = { [K in keyof typeof LOOKUPS]: { by: K; value: string } }[keyof typeof LOOKUPS];

/** The customers of account $1 found `by` $2, each joined with its consents (CustomerConsentRow), oldest customer first. */
export const withConsentsSql = (by: CustomerLookup['by']): string =>
  `SELECT c.svc_id, c.ref, c.name, c.email, c.email_confirmed, c.phone, c.phone_confirmed, c.lang, c.created_at, c.updated_at,
              k.purpose, k.granted, k.text, k.lang AS consent_lang, k.given_at, k.source, k.withdrawn_at, k.withdrawn_by, k.origin
         FROM contacts.customers c
         LEFT JOIN contacts.consents k ON k.customer_svc_id = c.svc_id
        WHERE c.account_id = $1 AND ${LOOKUPS[by]}
        ORDER BY c.svc_id, k.given_at, k.id`;

/** The consents of account $1's customer $2, oldest given_at first (then as recorded). */
export const CONSENTS_OF_SQL = sql('contacts_consents_of')`
  SELECT ${CONSENT_COLUMNS} FROM contacts.consents WHERE account_id = $1 AND customer_svc_id = $2 ORDER BY given_at, id`;
