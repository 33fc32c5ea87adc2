import { Injectable } from '@nestjs/common';
import {
  Booking,
  BookingCreator,
  BookingResponse,
  BookingsPage,
  BookingStatus,
  CreateBookingDto,
  EventContact,
  INBOX_PAGE_DEFAULT,
  INVALID_FIELDS,
  ListBookingsQueryDto,
  RequestBookingDto,
  toPage,
} from '@svc/contracts';
import { ContactsClient } from '@svc/internal-clients';
import { parseTimestampInput } from '@svc/persistence';
import { ApiError } from '@svc/platform';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { accountContext } from '../conversations/customers.service';
import { notFound } from '../inbox/inbox.service';
import { textsFor } from '../texts/texts';
import { BookingRow, BookingsRepository } from './bookings.repository';

/** Where a booking may go from each status; anything else is 409 `conflict`. */
export const BOOKING_TRANSITIONS: Record<BookingStatus, readonly BookingStatus[]> = {
  requested: ['confirmed', 'declined', 'cancelled'],
  confirmed: ['cancelled'],
  declined: [],
  cancelled: [],
};

/** What the customer is told in the conversation when a booking is made or changes, in the conversation's language. */
export function bookingNews(booking: Pick<BookingRow, 'listing_ref' | 'listing_heading' | 'starts_at' | 'status'>, lang: string): string {
  const texts = textsFor(lang);
  const words = {
    requested: texts.booking_requested,
    confirmed: texts.booking_confirmed,
    declined: texts.booking_declined,
    cancelled: texts.booking_cancelled,
  }[booking.status];
  const listing = booking.listing_heading ?? booking.listing_ref ?? texts.appointment;
  const when = `${booking.starts_at.slice(0, 10)} ${booking.starts_at.slice(11, 16)} UTC`;
  return words.replace('{listing}', listing).replace('{when}', when);
}

const invalidStart = (message: string) => new ApiError('validation_failed', INVALID_FIELDS, [{ path: 'starts_at', message }]);

/**
 * Bookings: requested by the customer from the chat (for the piece the assistant's last answer
 * cited), created by the team (console) or an agent (MCP), then confirmed, declined or cancelled.
 * Each booking and each change is told to the customer in the conversation, in the same transaction.
 */
@Injectable()
export class BookingsService {
  constructor(
    private readonly bookings: BookingsRepository,
    private readonly conversations: ConversationsRepository,
    private readonly contacts: ContactsClient,
  ) {}

  async list(accountId: string, query: ListBookingsQueryDto, requestId: string): Promise<BookingsPage> {
    const after = query.after ?? 0;
    const limit = query.limit ?? INBOX_PAGE_DEFAULT;
    const rows = await this.bookings.list(accountId, { status: query.status, after, limit });
    const contacts = new Map<number, Promise<EventContact | null>>();
    const contactOf = (svcId: number) => {
      if (!contacts.has(svcId)) contacts.set(svcId, this.contacts.bySvcId(svcId, accountContext(accountId, requestId)));
      return contacts.get(svcId) as Promise<EventContact | null>;
    };
    const view = async (row: BookingRow) => toBooking(row, row.customer_svc_id === null ? null : await contactOf(row.customer_svc_id));
    return toPage('bookings', rows, { limit, after, cursor: (row) => row.id, items: (page) => Promise.all(page.map(view)) });
  }

  /** By the team or an agent, for one of the account's conversations. */
  async create(accountId: string, dto: CreateBookingDto, requestId: string): Promise<BookingResponse> {
    const conversation = await this.conversations.get(accountId, dto.conversation_id);
    if (!conversation) throw notFound();
    const row = await this.make(conversation, {
      listingRef: dto.listing_ref ?? null,
      listingHeading: null,
      startsAt: dto.starts_at,
      note: dto.note ?? '',
      createdBy: dto.created_by,
    });
    return { booking: await this.view(accountId, row, requestId) };
  }

  /** The customer's request from the chat: for the piece the assistant's last answer cited (409 when it cited none). */
  async request(visitor: ConversationRow, dto: RequestBookingDto): Promise<{ booking: Omit<Booking, 'contact'> }> {
    const cited = await this.conversations.lastCitation(visitor.account_id, visitor.id);
    if (!cited)
      throw new ApiError('conflict', 'A booking is requested for something the assistant has just told you about: ask about it first.');
    const row = await this.make(visitor, {
      listingRef: cited.external_ref,
      listingHeading: cited.heading,
      startsAt: dto.starts_at,
      note: dto.note ?? '',
      createdBy: 'customer',
    });
    return { booking: bookingFields(row) };
  }

  /** requested → confirmed | declined | cancelled; confirmed → cancelled; the customer is told. */
  async update(accountId: string, id: number, status: BookingStatus, requestId: string): Promise<BookingResponse> {
    const row = await this.conversations.transaction(async (tx, manager) => {
      const current = await this.bookings.lock(manager, accountId, id);
      if (!current) throw notFound('booking');
      if (!BOOKING_TRANSITIONS[current.status].includes(status)) {
        throw new ApiError('conflict', `A ${current.status} booking cannot become ${status}.`);
      }
      const changed = await this.bookings.setStatus(manager, accountId, id, status);
      const conversation = await tx.get(accountId, changed.conversation_id);
      await tx.addMessage(accountId, changed.conversation_id, { author: 'system', text: bookingNews(changed, conversation?.lang ?? 'en') });
      return changed;
    });
    return { booking: await this.view(accountId, row, requestId) };
  }

  private async make(
    conversation: ConversationRow,
    booking: { listingRef: string | null; listingHeading: string | null; startsAt: string; note: string; createdBy: BookingCreator },
  ): Promise<BookingRow> {
    if (parseTimestampInput(booking.startsAt) === undefined)
      throw invalidStart('starts_at must be an ISO 8601 timestamp with Z or an offset, such as 2026-12-01T10:00:00Z');
    return this.conversations.transaction(async (tx, manager) => {
      const row = await this.bookings.create(manager, conversation.account_id, { conversationId: conversation.id, ...booking });
      if (!row) throw invalidStart('starts_at must be in the future');
      await tx.addMessage(conversation.account_id, conversation.id, { author: 'system', text: bookingNews(row, conversation.lang) });
      return row;
    });
  }

  private async view(accountId: string, row: BookingRow, requestId: string): Promise<Booking> {
    return toBooking(
      row,
      row.customer_svc_id === null ? null : await this.contacts.bySvcId(row.customer_svc_id, accountContext(accountId, requestId)),
    );
  }
}

function bookingFields(row: BookingRow): Omit<Booking, 'contact'> {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    listing_ref: row.listing_ref,
    starts_at: row.starts_at,
    note: row.note,
    status: row.status,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toBooking(row: BookingRow, contact: EventContact | null): Booking {
  return { ...bookingFields(row), contact };
}
