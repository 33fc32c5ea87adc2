import {
  AnalyticsResponse,
  AssistantPreviewResponse,
  BookingResponse,
  BookingsPage,
  BookingStatus,
  ConversationChannel,
  CustomerChangesDto,
  GatewayContext,
  InboxConversationResponse,
  InboxConversationsPage,
  TeamReplyResponse,
} from '@svc/contracts';
import type { Readable } from 'node:stream';
import { InternalClientOptions, InternalHttpClient } from './internal-http';

/** A query string of the parameters that are set. */
function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The chat's back office (`/internal/chat/*`) for the console and MCP; the chat's 4xx are rethrown as they are. */
export class ChatClient {
  private readonly http: InternalHttpClient;

  constructor(options: Omit<InternalClientOptions, 'upstream'>) {
    this.http = new InternalHttpClient({ ...options, upstream: 'chat' });
  }

  /** Newest activity first; `after` is the `next_after` of the previous page. */
  async listConversations(
    params: { needs_human?: boolean; channel?: ConversationChannel; after?: string; limit?: number },
    context: GatewayContext,
  ): Promise<InboxConversationsPage> {
    return this.http.expect(await this.http.call('GET', `/internal/chat/conversations${query(params)}`, context), 200, context);
  }

  async getConversation(id: number, context: GatewayContext): Promise<InboxConversationResponse> {
    return this.http.expect(await this.http.call('GET', `/internal/chat/conversations/${id}`, context), 200, context);
  }

  /** A team member's (or an agent's) reply: shown in the widget, `message.sent` with author `team`. */
  async reply(conversationId: number, text: string, context: GatewayContext): Promise<TeamReplyResponse> {
    return this.http.expect(
      await this.http.call('POST', `/internal/chat/conversations/${conversationId}/replies`, context, { text }),
      201,
      context,
    );
  }

  /** The account's inbox changes as Server-Sent Events, resumed from `lastEventId`, closed by `signal`. */
  openInboxStream(context: GatewayContext, lastEventId?: string, signal?: AbortSignal): Promise<Readable> {
    return this.http.openStream('/internal/chat/inbox/stream', context, lastEventId ? { 'last-event-id': lastEventId } : {}, signal);
  }

  /** What the assistant would answer a customer's question, and the piece it would cite (nothing is written). */
  async previewAnswer(question: string, lang: string | undefined, context: GatewayContext): Promise<AssistantPreviewResponse> {
    return this.http.expect(
      await this.http.call('POST', '/internal/chat/assistant/preview', context, lang ? { question, lang } : { question }),
      200,
      context,
    );
  }

  async listBookings(params: { status?: BookingStatus; after?: number; limit?: number }, context: GatewayContext): Promise<BookingsPage> {
    return this.http.expect(await this.http.call('GET', `/internal/chat/bookings${query(params)}`, context), 200, context);
  }

  async createBooking(
    booking: { conversation_id: number; listing_ref?: string; starts_at: string; note?: string; created_by: 'team' | 'agent' },
    context: GatewayContext,
  ): Promise<BookingResponse> {
    return this.http.expect(await this.http.call('POST', '/internal/chat/bookings', context, booking), 201, context);
  }

  /** requested → confirmed | declined | cancelled, confirmed → cancelled; anything else is 409 `conflict`. */
  async updateBooking(id: number, status: 'confirmed' | 'declined' | 'cancelled', context: GatewayContext): Promise<BookingResponse> {
    return this.http.expect(await this.http.call('PATCH', `/internal/chat/bookings/${id}`, context, { status }), 200, context);
  }

  /** Per-day figures for `from`..`to` (UTC dates `YYYY-MM-DD`, both included, at most 366 days). */
  async analytics(from: string, to: string, context: GatewayContext): Promise<AnalyticsResponse> {
    return this.http.expect(await this.http.call('GET', `/internal/chat/analytics${query({ from, to })}`, context), 200, context);
  }

  /**
   * contacts-api's `contact.changed` / `contact.erased` of one committed write, applied to the chat's
   * model of customers before that write answers (read your writes, ADR 014); 204 once applied.
   */
  async applyCustomerChanges(body: CustomerChangesDto, context: GatewayContext): Promise<void> {
    this.http.expect(await this.http.call('POST', '/internal/chat/customer-changes', context, body), 204, context);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
