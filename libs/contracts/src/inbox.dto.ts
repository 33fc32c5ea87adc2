/** Shapes of the chat's back-office routes (`/internal/chat/*`, for the console and MCP); not in the OpenAPI document. */
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { CHAT_MESSAGE_MAX, ChatCitation, ConversationStatus, MessageAuthor } from './chat.dto';
import { IsLanguageTag } from './contacts.dto';
import { AfterId, CodePoints, NoControlCharacters, PageLimit, PlainText } from './validators';
import type { EventContact } from './events';

export const INBOX_PAGE_DEFAULT = 50;
export const INBOX_PAGE_MAX = 200;
export const CONVERSATION_CHANNELS = ['web', 'whatsapp'] as const;
export type ConversationChannel = (typeof CONVERSATION_CHANNELS)[number];

/** The inbox cursor (opaque): `<last activity in µs since 1970>.<conversation id>` of the previous page's last. */
export const INBOX_CURSOR = /^\d{1,20}\.\d{1,15}$/;

/** `GET /internal/chat/conversations?needs_human=&channel=&after=&limit=`. */
export class ListConversationsQueryDto {
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'needs_human must be true or false' })
  needs_human?: 'true' | 'false';

  @IsOptional()
  @IsIn(CONVERSATION_CHANNELS, { message: `channel must be one of ${CONVERSATION_CHANNELS.join(', ')}` })
  channel?: ConversationChannel;

  @IsOptional()
  @IsString()
  @Matches(INBOX_CURSOR, { message: 'after must be the next_after of an earlier page' })
  after?: string;

  @PageLimit(INBOX_PAGE_MAX)
  limit?: number;
}

/** One message as the team sees it (`system`: the chat's own notices to the customer, e.g. hand-over and booking news). */
export interface InboxMessage {
  id: number;
  text: string;
  author: MessageAuthor;
  at: string;
  /** The piece an assistant answer is grounded in, or null. */
  cited_piece: ChatCitation | null;
}

/** A conversation in the inbox. */
export interface InboxConversation {
  id: number;
  channel: ConversationChannel;
  /** `{app_url}/inbox/{id}`. */
  url: string;
  status: ConversationStatus;
  /** The customer's language (BCP 47), as the assistant answers in it. */
  lang: string;
  /** A person was asked for (or the wait ran out) and the team has not answered the customer's latest message. */
  needs_human: boolean;
  /** The customer without consents, as contacts-api holds them now; null before the first message or after erasure. */
  contact: EventContact | null;
  /** The last message other than the chat's own notices; null when none. */
  last_message: Omit<InboxMessage, 'cited_piece'> | null;
  created_at: string;
  /** The last activity: the inbox's order (newest first). */
  updated_at: string;
}

/** `GET /internal/chat/conversations` → 200. */
export interface InboxConversationsPage {
  conversations: InboxConversation[];
  /** The `after` for the next page (the last conversation's cursor), or the `after` sent when the page is empty. */
  next_after: string | null;
  more: boolean;
}

/** `GET /internal/chat/conversations/:id` → 200. */
export interface InboxConversationResponse {
  conversation: InboxConversation;
  /** Oldest first. */
  messages: InboxMessage[];
}

/** `POST /internal/chat/conversations/:id/replies`. */
export class TeamReplyDto {
  @IsString()
  @CodePoints(1, CHAT_MESSAGE_MAX)
  @PlainText()
  @Matches(/\S/, { message: '$property must not be blank' })
  text!: string;
}

/** `POST /internal/chat/conversations/:id/replies` → 201. */
export interface TeamReplyResponse {
  message: InboxMessage;
}

/** An inbox stream event: this conversation changed, read it again; its `id:` is the resume cursor. */
export interface InboxStreamEvent {
  conversation_id: number;
  /** The conversation's latest message id (0: none yet). */
  last_message_id: number;
  updated_at: string;
}

/** `POST /internal/chat/assistant/preview`: what the assistant would answer (nothing is written). */
export class AssistantPreviewDto {
  @IsString()
  @CodePoints(1, CHAT_MESSAGE_MAX)
  @PlainText()
  @Matches(/\S/, { message: '$property must not be blank' })
  question!: string;

  @IsOptional()
  @IsLanguageTag()
  lang?: string;
}

/** `POST /internal/chat/assistant/preview` → 200. */
export interface AssistantPreviewResponse {
  answer: string;
  /** The piece the answer is grounded in; null when nothing matched well (the answer then offers a person). */
  cited_piece: ChatCitation | null;
  offers_person: boolean;
  lang: string;
}

// ---- Bookings ----

export const BOOKING_STATUSES = ['requested', 'confirmed', 'declined', 'cancelled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];
export const BOOKING_CREATORS = ['customer', 'team', 'agent'] as const;
export type BookingCreator = (typeof BOOKING_CREATORS)[number];
export const BOOKING_NOTE_MAX = 1000;

/** The contract's booking. */
export interface Booking {
  id: number;
  conversation_id: number;
  /** The conversation's customer as contacts-api holds them now; null after erasure. */
  contact: EventContact | null;
  /** A knowledge piece's external_ref, or null. */
  listing_ref: string | null;
  starts_at: string;
  note: string;
  status: BookingStatus;
  created_by: BookingCreator;
  created_at: string;
  updated_at: string;
}

/** `GET /internal/chat/bookings?status=&after=&limit=`: oldest first by id; `after` a booking id. */
export class ListBookingsQueryDto {
  @IsOptional()
  @IsIn(BOOKING_STATUSES, { message: `status must be one of ${BOOKING_STATUSES.join(', ')}` })
  status?: BookingStatus;

  @AfterId()
  after?: number;

  @PageLimit(INBOX_PAGE_MAX)
  limit?: number;
}

/** `GET /internal/chat/bookings` → 200. */
export interface BookingsPage {
  bookings: Booking[];
  /** The last booking's id, or the `after` sent when the page is empty. */
  next_after: number;
  more: boolean;
}

/** `POST /chat/v1/bookings` (the widget): a booking request for the piece the assistant's last answer cited. */
export class RequestBookingDto {
  /** ISO 8601 with `Z` or an offset. */
  @IsString()
  @MaxLength(64)
  starts_at!: string;

  @IsOptional()
  @IsString()
  @CodePoints(0, BOOKING_NOTE_MAX)
  @PlainText()
  note?: string;
}

/** `POST /internal/chat/bookings` (the team or an agent): a request's time and note, for a conversation. */
export class CreateBookingDto extends RequestBookingDto {
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  conversation_id!: number;

  @IsOptional()
  @IsString()
  @CodePoints(1, 255)
  @NoControlCharacters()
  listing_ref?: string;

  @IsIn(['team', 'agent'])
  created_by!: 'team' | 'agent';
}

/** `PATCH /internal/chat/bookings/:id`. */
export class UpdateBookingDto {
  @IsIn(['confirmed', 'declined', 'cancelled'])
  status!: 'confirmed' | 'declined' | 'cancelled';
}

/** `{booking}`: the answer of every booking write (201 create, 200 update). */
export interface BookingResponse {
  booking: Booking;
}

// ---- Analytics ----

/** The longest range `GET /internal/chat/analytics` answers, in days (both ends included). */
export const ANALYTICS_MAX_DAYS = 366;

/** `GET /internal/chat/analytics?from=YYYY-MM-DD&to=YYYY-MM-DD` (UTC days, both included). */
export class AnalyticsQueryDto {
  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'from must be a date such as 2026-11-01' })
  from!: string;

  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'to must be a date such as 2026-11-30' })
  to!: string;
}

/** One UTC day of the analytics. */
export interface AnalyticsDay {
  date: string;
  /** New conversations by channel (started that day, with at least one message). */
  conversations: Record<ConversationChannel, number>;
  messages_received: number;
  messages_sent: { assistant: number; team: number };
  /** Conversations started that day that had an answer from the assistant and never needed a person (no hand-over, no team reply). */
  closed_by_assistant: number;
  /** Hand-overs that happened that day, by reason. */
  handovers: { customer_asked: number; assistant_unsure: number; nobody_answered: number };
  /** Median seconds from a hand-over request to the first team reply, over that day's answered ones; else null. */
  median_first_team_reply_seconds: number | null;
  confirmations: { email: number; phone: number };
  consents: { granted: Record<string, number>; withdrawn: Record<string, number> };
  bookings: { requested: number; confirmed: number };
}

/** `GET /internal/chat/analytics` → 200. */
export interface AnalyticsResponse {
  from: string;
  to: string;
  days: AnalyticsDay[];
  /** The 10 pieces the assistant cited most in the range. */
  top_cited_pieces: Array<{ external_ref: string; heading: string; count: number }>;
  /** The 10 questions asked most often in the range that the assistant found no good match for (compared case- and space-insensitively). */
  top_unanswered_questions: Array<{ question: string; count: number }>;
}
