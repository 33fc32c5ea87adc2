import { Injectable } from '@nestjs/common';
import { Booking, BookingCreator, BookingStatus } from '@svc/contracts';
import { Columns } from '@svc/persistence';
import { DataSource, EntityManager } from 'typeorm';
import type { Bookings } from '../schema.generated';
import { execute, queryRows, sql } from '../statements';

/**
 * A booking as stored (BOOKING_SELECT, ids read ::float8): the contract's `Booking` with its conversation's
 * customer's svc_id instead of the customer, and the cited piece's heading when the customer asked from an
 * answer (for the words told to them). The status and creator are held to the contract's values.
 */
export type BookingRow = Columns<
  Bookings,
  'listing_ref' | 'listing_heading' | 'starts_at' | 'note' | 'status' | 'created_by' | 'created_at' | 'updated_at'
> &
  Pick<Booking, 'status' | 'created_by'> & { id: number; conversation_id: number; customer_svc_id: number | null };

export interface NewBooking {
  conversationId: number;
  listingRef: string | null;
  listingHeading: string | null;
  startsAt: string;
  note: string;
  createdBy: BookingCreator;
}

const BOOKING_SELECT = `
  SELECT b.id::float8 AS id, b.conversation_id::float8 AS conversation_id, c.customer_svc_id::float8 AS customer_svc_id,
         b.listing_ref, b.listing_heading, b.starts_at, b.note, b.status, b.created_by, b.created_at, b.updated_at
    FROM chat.bookings b JOIN chat.conversations c ON c.id = b.conversation_id`;

/** The SQL of bookings (schema `chat`), every query scoped by account. Writes run in the caller's transaction. */
@Injectable()
export class BookingsRepository {
  constructor(private readonly db: DataSource) {}

  /** Oldest first by id, `limit + 1` rows at the most (the one past the page tells that there are more). */
  async list(accountId: string, filter: { status?: BookingStatus; after: number; limit: number }): Promise<BookingRow[]> {
    return queryRows<BookingRow>(
      this.db,
      sql('chat_bookings_list')`
        ${BOOKING_SELECT} WHERE b.account_id = $1 AND ($2::text IS NULL OR b.status = $2) AND b.id > $3 ORDER BY b.id LIMIT $4`,
      [accountId, filter.status ?? null, filter.after, filter.limit + 1],
    );
  }

  async get(accountId: string, id: number): Promise<BookingRow | undefined> {
    const rows = await queryRows<BookingRow>(this.db, sql('chat_bookings_get')`${BOOKING_SELECT} WHERE b.account_id = $1 AND b.id = $2`, [
      accountId,
      id,
    ]);
    return rows[0];
  }

  /** The new booking, or undefined when `startsAt` is not in the future (nothing written). */
  async create(tx: EntityManager, accountId: string, booking: NewBooking): Promise<BookingRow | undefined> {
    const rows = await queryRows<{ id: number }>(
      tx,
      sql('chat_bookings_create')`
        INSERT INTO chat.bookings (account_id, conversation_id, listing_ref, listing_heading, starts_at, note, created_by)
       SELECT $1, $2, $3, $4, $5::timestamptz, $6, $7 WHERE $5::timestamptz > now()
       RETURNING id::float8 AS id`,
      [accountId, booking.conversationId, booking.listingRef, booking.listingHeading, booking.startsAt, booking.note, booking.createdBy],
    );
    return rows[0] && this.read(tx, accountId, rows[0].id);
  }

  /** The booking, locked until the transaction ends. */
  async lock(tx: EntityManager, accountId: string, id: number): Promise<BookingRow | undefined> {
    const rows = await queryRows<BookingRow>(
      tx,
      sql('chat_bookings_lock')`${BOOKING_SELECT} WHERE b.account_id = $1 AND b.id = $2 FOR UPDATE OF b`,
      [accountId, id],
    );
    return rows[0];
  }

  async setStatus(tx: EntityManager, accountId: string, id: number, status: BookingStatus): Promise<BookingRow> {
    await execute(
      tx,
      sql('chat_bookings_set_status')`
        UPDATE chat.bookings SET status = $3, updated_at = now(), confirmed_at = CASE WHEN $3 = 'confirmed' THEN now() ELSE confirmed_at END
        WHERE account_id = $1 AND id = $2`,
      [accountId, id, status],
    );
    return (await this.read(tx, accountId, id)) as BookingRow;
  }

  private async read(tx: EntityManager, accountId: string, id: number): Promise<BookingRow | undefined> {
    const rows = await queryRows<BookingRow>(tx, sql('chat_bookings_read')`${BOOKING_SELECT} WHERE b.account_id = $1 AND b.id = $2`, [
      accountId,
      id,
    ]);
    return rows[0];
  }
}
