import { Injectable } from '@nestjs/common';
import { EventContact } from '@svc/contracts';
import { execute, queryOne } from '@svc/persistence';
import { DataSource } from 'typeorm';

/**
 * The chat's model of contacts-api's customers (`chat.customers`, ADR 013): each as the newest
 * `contact.changed` or contacts-api answer showed them; an erased one stays as a row without its
 * data, so that nothing older brings them back.
 */
@Injectable()
export class CustomersRepository {
  constructor(private readonly db: DataSource) {}

  /** The customer as the model holds them; null when erased or not held. */
  async known(accountId: string, svcId: number): Promise<EventContact | null> {
    const row = await queryOne<{ contact: EventContact | null }>(
      this.db,
      { name: 'chat_known_customer', text: 'SELECT contact FROM chat.customers WHERE account_id = $1 AND svc_id = $2' },
      [accountId, svcId],
    );
    return row?.contact ?? null;
  }

  /** Holds `contact` unless the model holds a newer version of them, or knows them erased. */
  async remember(accountId: string, contact: EventContact): Promise<void> {
    await execute(
      this.db,
      `INSERT INTO chat.customers AS held (account_id, svc_id, contact, updated_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (account_id, svc_id) DO UPDATE SET contact = excluded.contact, updated_at = excluded.updated_at
        WHERE held.contact IS NOT NULL AND held.updated_at < excluded.updated_at`,
      [accountId, contact.svc_id, JSON.stringify(contact), contact.updated_at],
    );
  }

  /** The customer was erased: the model keeps nothing of them, for good. */
  async forget(accountId: string, svcId: number): Promise<void> {
    await execute(
      this.db,
      `INSERT INTO chat.customers AS held (account_id, svc_id, contact, updated_at) VALUES ($1, $2, NULL, 'infinity')
       ON CONFLICT (account_id, svc_id) DO UPDATE SET contact = NULL, updated_at = 'infinity'`,
      [accountId, svcId],
    );
  }
}
