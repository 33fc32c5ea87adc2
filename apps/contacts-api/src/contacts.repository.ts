import { EventContact, StoredConsent } from '@svc/contracts';
import { domainMessage, enqueueDomainMessage } from '@svc/messaging';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { CustomerFields, Withdrawal } from './contact-rules';
import { CONTACTS_SCHEMA } from './migrations';

const CUSTOMER_COLUMNS = 'svc_id, ref, name, email, email_confirmed, phone, phone_confirmed, lang, created_at, updated_at';
const CONSENT_COLUMNS = 'customer_svc_id, purpose, granted, text, lang, given_at, source, withdrawn_at, withdrawn_by, origin';

/** bigint comes back from the driver as text; svc_ids stay far below 2^53. */
type CustomerRow = Omit<EventContact, 'svc_id'> & { svc_id: string };
type ConsentRow = StoredConsent & { customer_svc_id: string };

const toContact = (row: CustomerRow): EventContact => ({
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

const toConsent = ({ customer_svc_id: _, ...consent }: ConsentRow): StoredConsent => consent;

/** A customer's consents, by svc_id. */
export type ConsentsByCustomer = Map<number, StoredConsent[]>;

/**
 * Thrown inside a transaction to run it again from the start, on a fresh snapshot: the state it
 * read was overtaken by a concurrent transaction (e.g. another PUT created the same ref first).
 */
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
class ContactReads {
  constructor(protected readonly db: DataSource | EntityManager) {}

  async byRef(accountId: string, ref: string): Promise<EventContact | undefined> {
    const rows: CustomerRow[] = await this.db.query(`SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND ref = $2`, [accountId, ref]);
    return rows[0] && toContact(rows[0]);
  }

  async bySvcId(accountId: string, svcId: number): Promise<EventContact | undefined> {
    const rows: CustomerRow[] = await this.db.query(`SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND svc_id = $2`, [accountId, svcId]);
    return rows[0] && toContact(rows[0]);
  }

  async byEmail(accountId: string, email: string): Promise<EventContact[]> {
    const rows: CustomerRow[] = await this.db.query(
      `SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND lower(email) = lower($2) ORDER BY svc_id`,
      [accountId, email],
    );
    return rows.map(toContact);
  }

  async byPhone(accountId: string, phone: string): Promise<EventContact[]> {
    const rows: CustomerRow[] = await this.db.query(`SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND phone = $2 ORDER BY svc_id`, [
      accountId,
      phone,
    ]);
    return rows.map(toContact);
  }

  /** The consents of these customers, each list ordered by given_at (then as recorded). */
  async consentsOf(accountId: string, svcIds: number[]): Promise<ConsentsByCustomer> {
    const byCustomer: ConsentsByCustomer = new Map(svcIds.map((id) => [id, []]));
    if (svcIds.length === 0) return byCustomer;
    const rows: ConsentRow[] = await this.db.query(
      `SELECT ${CONSENT_COLUMNS} FROM contacts.consents WHERE account_id = $1 AND customer_svc_id = ANY($2::bigint[]) ORDER BY given_at, id`,
      [accountId, svcIds],
    );
    for (const row of rows) byCustomer.get(Number(row.customer_svc_id))?.push(toConsent(row));
    return byCustomer;
  }
}

/** The writes of one transaction. Customers are locked (`FOR UPDATE`) before their consents change. */
export class ContactsTransaction extends ContactReads {
  constructor(db: EntityManager) {
    super(db);
  }

  async lockByRef(accountId: string, ref: string): Promise<EventContact | undefined> {
    const rows: CustomerRow[] = await this.db.query(`SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND ref = $2 FOR UPDATE`, [
      accountId,
      ref,
    ]);
    return rows[0] && toContact(rows[0]);
  }

  async lockBySvcId(accountId: string, svcId: number): Promise<EventContact | undefined> {
    const rows: CustomerRow[] = await this.db.query(`SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND svc_id = $2 FOR UPDATE`, [
      accountId,
      svcId,
    ]);
    return rows[0] && toContact(rows[0]);
  }

  /** Inserts a customer, or returns undefined when another transaction holds or took the ref. */
  async insert(accountId: string, ref: string, fields: CustomerFields): Promise<EventContact | undefined> {
    const rows: CustomerRow[] = await this.db.query(
      `INSERT INTO contacts.customers (account_id, ref, name, email, email_confirmed, phone, phone_confirmed, lang)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (account_id, ref) DO NOTHING
       RETURNING ${CUSTOMER_COLUMNS}`,
      [accountId, ref, fields.name, fields.email, fields.email_confirmed, fields.phone, fields.phone_confirmed, fields.lang],
    );
    return rows[0] && toContact(rows[0]);
  }

  /** Writes a locked customer's fields and ref (the ref changes only when attaching a chat-met customer). */
  async update(accountId: string, svcId: number, ref: string, fields: CustomerFields): Promise<EventContact> {
    const [rows]: [CustomerRow[], number] = await this.db.query(
      `UPDATE contacts.customers
          SET ref = $3, name = $4, email = $5, email_confirmed = $6, phone = $7, phone_confirmed = $8, lang = $9, updated_at = now()
        WHERE account_id = $1 AND svc_id = $2
        RETURNING ${CUSTOMER_COLUMNS}`,
      [accountId, svcId, ref, fields.name, fields.email, fields.email_confirmed, fields.phone, fields.phone_confirmed, fields.lang],
    );
    return toContact(rows[0] as CustomerRow);
  }

  async insertConsents(accountId: string, svcId: number, consents: StoredConsent[]): Promise<void> {
    if (consents.length === 0) return;
    const column = <K extends keyof StoredConsent>(key: K) => consents.map((consent) => consent[key]);
    await this.db.query(
      `INSERT INTO contacts.consents (account_id, customer_svc_id, purpose, granted, text, lang, given_at, source, withdrawn_at, withdrawn_by, origin)
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
    await this.db.query(
      `UPDATE contacts.consents c
          SET withdrawn_at = w.withdrawn_at, withdrawn_by = w.withdrawn_by
         FROM unnest($3::text[], $4::timestamptz[], $5::text[], $6::timestamptz[], $7::text[]) AS w (purpose, given_at, source, withdrawn_at, withdrawn_by)
        WHERE c.account_id = $1 AND c.customer_svc_id = $2
          AND c.purpose = w.purpose AND c.given_at = w.given_at AND c.source = w.source
          AND c.granted AND c.withdrawn_at IS NULL`,
      [accountId, svcId, column('purpose'), column('given_at'), column('source'), column('withdrawn_at'), column('withdrawn_by')],
    );
  }

  /**
   * Deletes the customer (its consents go with it, ON DELETE CASCADE) and enqueues `contact.erased`
   * in the same transaction, so the erasure and its message commit together. Undefined when unknown.
   */
  async erase(accountId: string, ref: string): Promise<EventContact | undefined> {
    const [rows]: [CustomerRow[], number] = await this.db.query(`DELETE FROM contacts.customers WHERE account_id = $1 AND ref = $2 RETURNING ${CUSTOMER_COLUMNS}`, [
      accountId,
      ref,
    ]);
    const erased = rows[0] && toContact(rows[0]);
    if (erased) await enqueueDomainMessage(this.db, CONTACTS_SCHEMA, domainMessage('contact.erased', accountId, { svc_id: erased.svc_id, ref: erased.ref }));
    return erased;
  }
}

/** The SQL of schema `contacts`, and nothing else. */
export class ContactsRepository extends ContactReads {
  constructor(private readonly dataSource: DataSource) {
    super(dataSource);
  }

  /**
   * Runs `work` in one READ COMMITTED transaction. When it loses a race to a concurrent writer
   * (a unique violation, a deadlock, or an explicit RetryTransaction) it runs again from the start,
   * so a caller sees the other writer's result instead of an error.
   */
  async transaction<T>(work: (tx: ContactsTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.dataSource.transaction((manager) => work(new ContactsTransaction(manager)));
      } catch (err) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(err)) throw err;
      }
    }
  }
}
