import { Injectable } from '@nestjs/common';
import { DomainMessage, EventContact } from '@svc/contracts';
import { Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { Customers } from '../schema.generated';
import { execute, prepared, queryOne, sql } from '../statements';

/** contacts-api's messages the model follows. */
export const MODEL_KINDS = ['contact.changed', 'contact.erased'] as const;

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
    const row = await queryOne<Omit<Columns<Customers, 'contact'>, 'contact'> & { contact: EventContact | null }>(
      this.db,
      prepared('chat_known_customer')`SELECT contact FROM chat.customers WHERE account_id = $1 AND svc_id = $2`,
      [accountId, svcId],
    );
    return row?.contact ?? null;
  }

  /** Holds `contact` unless the model holds a newer version of them, or knows them erased. */
  async remember(accountId: string, contact: EventContact): Promise<void> {
    await execute(
      this.db,
      sql('chat_customers_remember')`
        INSERT INTO chat.customers AS held (account_id, svc_id, contact, updated_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (account_id, svc_id) DO UPDATE SET contact = excluded.contact, updated_at = excluded.updated_at
        WHERE held.contact IS NOT NULL AND held.updated_at < excluded.updated_at`,
      [accountId, contact.svc_id, JSON.stringify(contact), contact.updated_at],
    );
  }

  /**
   * Applies one of contacts-api's messages about a customer (from the broker, or handed over directly
   * before the write answered): any order, any number of times, ends in the newest state.
   */
  async follow(message: DomainMessage<(typeof MODEL_KINDS)[number]>): Promise<void> {
    if (message.kind === 'contact.changed') await this.remember(message.account_id, message.data.contact);
    else await this.forget(message.account_id, message.data.svc_id);
  }

  /** The customer was erased: the model keeps nothing of them, for good. */
  async forget(accountId: string, svcId: number): Promise<void> {
    await execute(
      this.db,
      sql('chat_customers_forget')`
        INSERT INTO chat.customers AS held (account_id, svc_id, contact, updated_at) VALUES ($1, $2, NULL, 'infinity')
       ON CONFLICT (account_id, svc_id) DO UPDATE SET contact = NULL, updated_at = 'infinity'`,
      [accountId, svcId],
    );
  }
}
