import { CustomerFields, DomainMessage, EventContact, StoredConsent } from '@svc/contracts';
import { domainMessage, enqueueDomainMessages } from '@svc/messaging';
import { Columns } from '@svc/persistence';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { Withdrawal } from './customer-rules';
import {
  CONSENT_COLUMNS,
  CONSENTS_OF_SQL,
  CUSTOMER_COLUMNS,
  CustomerConsentRow,
  CustomerLookup,
  CustomerRow,
  customerSql,
  toConsent,
  toContact,
  withConsentsSql,
} from './customers.sql';
import { CONTACTS_SCHEMA } from './migrations';
import type { Consents } from './schema.generated';
import { execute, prepared, queryOne, queryRows, sql } from './statements';

/** A customer by ref or by svc_id, and the same locked FOR UPDATE (ADR 003). */
const BY_REF = prepared('contacts_customer_by_ref')`${customerSql('ref', false)}`;
const BY_REF_LOCKED = prepared('contacts_customer_by_ref_locked')`${customerSql('ref', true)}`;
const BY_SVC_ID = prepared('contacts_customer_by_svc_id')`${customerSql('svc_id', false)}`;
const BY_SVC_ID_LOCKED = prepared('contacts_customer_by_svc_id_locked')`${customerSql('svc_id', true)}`;
/** Customers with their consents, by ref, email or phone. */
const WITH_CONSENTS = {
  ref: sql('contacts_with_consents_by_ref')`${withConsentsSql('ref')}`,
  email: sql('contacts_with_consents_by_email')`${withConsentsSql('email')}`,
  phone: sql('contacts_with_consents_by_phone')`${withConsentsSql('phone')}`,
};
/** Marks a customer's email or phone confirmed. */
const confirmSql = (column: string): string =>
  `UPDATE contacts.customers SET ${column} = true, updated_at = now() WHERE account_id = $1 AND svc_id = $2 RETURNING ${CUSTOMER_COLUMNS}`;
const CONFIRM = {
  email: sql('contacts_confirm_email')`${confirmSql('email_confirmed')}`,
  phone: sql('contacts_confirm_phone')`${confirmSql('phone_confirmed')}`,
};

export type { CustomerLookup } from './customers.sql';

/** A consent and contacts-api's id of it. */
export interface IdentifiedConsent {
  id: number;
  consent: StoredConsent;
}
/** CONSENT_COLUMNS; `purpose` and `origin` are held to their values by the table's CHECK constraints. */
type ConsentRow = Columns<
  Consents,
  'purpose' | 'granted' | 'text' | 'lang' | 'given_at' | 'source' | 'withdrawn_at' | 'withdrawn_by' | 'origin'
> &
  Pick<StoredConsent, 'purpose' | 'origin'>;
/** `id, ${CONSENT_COLUMNS}`: bigint comes back as text. */
type IdentifiedConsentRow = ConsentRow & Columns<Consents, 'id'>;
const toIdentified = ({ id, ...consent }: IdentifiedConsentRow): IdentifiedConsent => ({ id: Number(id), consent });

/** Purposes a WhatsApp STOP withdraws. */
export const WHATSAPP_PURPOSES = ['reply_whatsapp', 'future_whatsapp'];

/** A customer and every consent of theirs, oldest given_at first. */
export interface CustomerWithConsents {
  contact: EventContact;
  consents: StoredConsent[];
}

/** Thrown inside a transaction to run it again on a fresh snapshot (a concurrent writer overtook it). */
export class RetryTransaction extends Error {
  override readonly name = 'RetryTransaction';
}

/** unique_violation, serialization_failure, deadlock_detected: a concurrent writer won; a rerun sees its result. */
const RETRYABLE_SQLSTATES = new Set(['23505', '40001', '40P01']);
const MAX_ATTEMPTS = 5;

function isRetryable(err: unknown): boolean {
  if (err instanceof RetryTransaction) return true;
  const code = err instanceof QueryFailedError ? (err.driverError as { code?: unknown }).code : undefined;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

/** Reads, every one scoped by account. Shared by the repository and its transactions. */
class CustomerReads {
  constructor(protected readonly db: DataSource | EntityManager) {}

  byRef(accountId: string, ref: string): Promise<EventContact | undefined> {
    return this.customer(accountId, 'ref', ref);
  }

  bySvcId(accountId: string, svcId: number): Promise<EventContact | undefined> {
    return this.customer(accountId, 'svc_id', svcId);
  }

  /** The customer whose `key` is `value` (`lock`: FOR UPDATE). See docs/adr/003-named-prepared-statements.md */
  protected async customer(
    accountId: string,
    key: 'ref' | 'svc_id',
    value: string | number,
    lock = false,
  ): Promise<EventContact | undefined> {
    const row =
      key === 'ref'
        ? await queryOne<CustomerRow>(this.db, lock ? BY_REF_LOCKED : BY_REF, [accountId, String(value)])
        : await queryOne<CustomerRow>(this.db, lock ? BY_SVC_ID_LOCKED : BY_SVC_ID, [accountId, value]);
    return row && toContact(row);
  }

  /** Customers with their consents in one query, oldest customer first. */
  async withConsents(accountId: string, lookup: CustomerLookup): Promise<CustomerWithConsents[]> {
    const rows = await queryRows<CustomerConsentRow>(this.db, WITH_CONSENTS[lookup.by], [accountId, lookup.value]);
    const customers: CustomerWithConsents[] = [];
    for (const row of rows) {
      let last = customers[customers.length - 1];
      if (last?.contact.svc_id !== Number(row.svc_id)) {
        last = { contact: toContact(row), consents: [] };
        customers.push(last);
      }
      if (row.purpose !== null) last.consents.push(toConsent(row));
    }
    return customers;
  }

  /** A customer's consents, oldest given_at first (then as recorded). */
  async consentsOf(accountId: string, svcId: number): Promise<StoredConsent[]> {
    return queryRows<ConsentRow>(this.db, CONSENTS_OF_SQL, [accountId, svcId]);
  }

  /** A customer's consents with their ids (for the console's Withdraw action), oldest given_at first. */
  async consentsWithIds(accountId: string, svcId: number): Promise<IdentifiedConsent[]> {
    const rows = await queryRows<IdentifiedConsentRow>(
      this.db,
      sql('contacts_customers_consents_with_ids')`
        SELECT id, ${CONSENT_COLUMNS} FROM contacts.consents WHERE account_id = $1 AND customer_svc_id = $2 ORDER BY given_at, id`,
      [accountId, svcId],
    );
    return rows.map(toIdentified);
  }
}

/** The writes of one transaction. Customers are locked (`FOR UPDATE`) before their consents change. */
export class CustomersTransaction extends CustomerReads {
  /** What this transaction changed of customers who existed before it: the chat's model is told once it committed (ADR 014). */
  readonly modelChanges: DomainMessage[] = [];

  constructor(db: EntityManager) {
    super(db);
  }

  lockByRef(accountId: string, ref: string): Promise<EventContact | undefined> {
    return this.customer(accountId, 'ref', ref, true);
  }

  lockBySvcId(accountId: string, svcId: number): Promise<EventContact | undefined> {
    return this.customer(accountId, 'svc_id', svcId, true);
  }

  /** Inserts a customer, or returns undefined when another transaction holds or took the ref. */
  async insert(accountId: string, ref: string, fields: CustomerFields): Promise<EventContact | undefined> {
    const row = await queryOne<CustomerRow>(
      this.db,
      sql('contacts_customers_insert')`
        INSERT INTO contacts.customers (account_id, ref, name, email, email_confirmed, phone, phone_confirmed, lang)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (account_id, ref) DO NOTHING
       RETURNING ${CUSTOMER_COLUMNS}`,
      [accountId, ref, fields.name, fields.email, fields.email_confirmed, fields.phone, fields.phone_confirmed, fields.lang],
    );
    return row && this.changed(accountId, toContact(row), 'new');
  }

  /** A customer the chat met: no ref, no details, a new svc_id. */
  async insertChatMet(accountId: string): Promise<EventContact> {
    const rows = await queryRows<CustomerRow>(
      this.db,
      sql('contacts_customers_insert_chat_met')`
        INSERT INTO contacts.customers (account_id, ref, name, email, email_confirmed, phone, phone_confirmed, lang)
       VALUES ($1, NULL, '', NULL, false, NULL, false, NULL)
       RETURNING ${CUSTOMER_COLUMNS}`,
      [accountId],
    );
    return this.changed(accountId, toContact(rows[0] as CustomerRow), 'new');
  }

  /** The transaction's clock, as consents store it (microseconds, UTC). */
  async now(): Promise<string> {
    const [row] = await queryRows<{ now: string }>(this.db, sql('contacts_customers_now')`SELECT now() AS now`);
    return row.now;
  }

  /** Public events this transaction's change produced, committed with it (outbox). */
  async enqueueEvents(messages: DomainMessage[]): Promise<void> {
    await enqueueDomainMessages(this.db, CONTACTS_SCHEMA, messages);
  }

  /** Writes a locked customer's fields and ref (the ref changes only when attaching a chat-met customer). */
  async update(accountId: string, svcId: number, ref: string | null, fields: CustomerFields): Promise<EventContact> {
    const rows = await queryRows<CustomerRow>(
      this.db,
      sql('contacts_customers_update')`UPDATE contacts.customers
          SET ref = $3, name = $4, email = $5, email_confirmed = $6, phone = $7, phone_confirmed = $8, lang = $9, updated_at = now()
        WHERE account_id = $1 AND svc_id = $2
        RETURNING ${CUSTOMER_COLUMNS}`,
      [accountId, svcId, ref, fields.name, fields.email, fields.email_confirmed, fields.phone, fields.phone_confirmed, fields.lang],
    );
    return this.changed(accountId, toContact(rows[0] as CustomerRow));
  }

  async insertConsents(accountId: string, svcId: number, consents: StoredConsent[]): Promise<void> {
    if (consents.length === 0) return;
    const column = <K extends keyof StoredConsent>(key: K) => consents.map((consent) => consent[key]);
    await execute(
      this.db,
      sql('contacts_customers_insert_consents')`
        INSERT INTO contacts.consents (account_id, customer_svc_id, purpose, granted, text, lang, given_at, source, withdrawn_at, withdrawn_by, origin)
       SELECT $1, $2, * FROM unnest($3::text[], $4::boolean[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::timestamptz[], $10::text[], $11::text[])`,
      [
        accountId,
        svcId,
        column('purpose'),
        column('granted'),
        column('text'),
        column('lang'),
        column('given_at'),
        column('source'),
        column('withdrawn_at'),
        column('withdrawn_by'),
        column('origin'),
      ],
    );
  }

  /** Withdraws consents by identity; one that is no longer active is left as it is. */
  async withdrawConsents(accountId: string, svcId: number, withdrawals: Withdrawal[]): Promise<void> {
    if (withdrawals.length === 0) return;
    const column = <K extends keyof Withdrawal>(key: K) => withdrawals.map((withdrawal) => withdrawal[key]);
    await execute(
      this.db,
      sql('contacts_customers_withdraw_consents')`UPDATE contacts.consents c
          SET withdrawn_at = w.withdrawn_at, withdrawn_by = w.withdrawn_by
         FROM unnest($3::text[], $4::timestamptz[], $5::text[], $6::timestamptz[], $7::text[]) AS w (purpose, given_at, source, withdrawn_at, withdrawn_by)
        WHERE c.account_id = $1 AND c.customer_svc_id = $2
          AND c.purpose = w.purpose AND c.given_at = w.given_at AND c.source = w.source
          AND c.granted AND c.withdrawn_at IS NULL`,
      [accountId, svcId, column('purpose'), column('given_at'), column('source'), column('withdrawn_at'), column('withdrawn_by')],
    );
  }

  /** Withdraws one consent by id if it is active (now, by `withdrawnBy`); undefined when it is not the customer's or not active. */
  async withdrawById(accountId: string, svcId: number, consentId: number, withdrawnBy: string): Promise<IdentifiedConsent | undefined> {
    const row = await queryOne<IdentifiedConsentRow>(
      this.db,
      sql('contacts_customers_withdraw_by_id')`UPDATE contacts.consents SET withdrawn_at = now(), withdrawn_by = $4
        WHERE account_id = $1 AND customer_svc_id = $2 AND id = $3 AND granted AND withdrawn_at IS NULL
        RETURNING id, ${CONSENT_COLUMNS}`,
      [accountId, svcId, consentId, withdrawnBy],
    );
    return row && toIdentified(row);
  }

  async consentById(accountId: string, svcId: number, consentId: number): Promise<IdentifiedConsent | undefined> {
    const row = await queryOne<IdentifiedConsentRow>(
      this.db,
      sql('contacts_customers_consent_by_id')`
        SELECT id, ${CONSENT_COLUMNS} FROM contacts.consents WHERE account_id = $1 AND customer_svc_id = $2 AND id = $3`,
      [accountId, svcId, consentId],
    );
    return row && toIdentified(row);
  }

  /** The account's customers with this phone, locked, oldest first. */
  async lockByPhone(accountId: string, phone: string): Promise<EventContact[]> {
    const rows = await queryRows<CustomerRow>(
      this.db,
      sql('contacts_customers_lock_by_phone')`
        SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND phone = $2 ORDER BY svc_id FOR UPDATE`,
      [accountId, phone],
    );
    return rows.map(toContact);
  }

  /** Withdraws every active consent of these purposes of a locked customer, returning them. */
  async withdrawActive(accountId: string, svcId: number, purposes: string[], withdrawnBy: string): Promise<IdentifiedConsent[]> {
    const rows = await queryRows<IdentifiedConsentRow>(
      this.db,
      sql('contacts_customers_withdraw_active')`UPDATE contacts.consents SET withdrawn_at = now(), withdrawn_by = $4
        WHERE account_id = $1 AND customer_svc_id = $2 AND purpose = ANY($3::text[]) AND granted AND withdrawn_at IS NULL
        RETURNING id, ${CONSENT_COLUMNS}`,
      [accountId, svcId, purposes, withdrawnBy],
    );
    return rows.map(toIdentified).sort((a, b) => a.id - b.id);
  }

  /** Marks a locked customer's email or phone confirmed. */
  async markConfirmed(accountId: string, svcId: number, field: 'email' | 'phone'): Promise<EventContact> {
    const rows = await queryRows<CustomerRow>(this.db, CONFIRM[field], [accountId, svcId]);
    return this.changed(accountId, toContact(rows[0] as CustomerRow));
  }

  /**
   * `contact.changed` for a customer this transaction wrote (the chat keeps a model of customers from
   * it, ADR 013); returns the customer. A change of a customer who existed before is also told to the
   * chat directly once committed (`modelChanges`); a new one the chat cannot hold yet.
   */
  private async changed(accountId: string, contact: EventContact, customer: 'new' | 'existing' = 'existing'): Promise<EventContact> {
    const message = domainMessage('contact.changed', accountId, { contact });
    await enqueueDomainMessages(this.db, CONTACTS_SCHEMA, [message]);
    if (customer === 'existing') this.modelChanges.push(message);
    return contact;
  }

  /** Deletes the customer and its consents with `contact.erased` in one transaction; undefined when unknown. */
  async erase(accountId: string, ref: string): Promise<EventContact | undefined> {
    const rows = await queryRows<CustomerRow>(
      this.db,
      sql('contacts_customers_erase')`DELETE FROM contacts.customers WHERE account_id = $1 AND ref = $2 RETURNING ${CUSTOMER_COLUMNS}`,
      [accountId, ref],
    );
    const erased = rows[0] && toContact(rows[0]);
    if (erased) {
      const message = domainMessage('contact.erased', accountId, { svc_id: erased.svc_id, ref: erased.ref });
      await enqueueDomainMessages(this.db, CONTACTS_SCHEMA, [message]);
      this.modelChanges.push(message);
    }
    return erased;
  }
}

/** The SQL of schema `contacts`, and nothing else. */
export class CustomersRepository extends CustomerReads {
  constructor(private readonly dataSource: DataSource) {
    super(dataSource);
  }

  /** Runs `work` in a READ COMMITTED transaction, again from the start when it loses a race to another writer. */
  async transaction<T>(work: (tx: CustomersTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.dataSource.transaction((manager) => work(new CustomersTransaction(manager)));
      } catch (err) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(err)) throw err;
      }
    }
  }
}
