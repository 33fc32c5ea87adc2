import type {
  Booking,
  ChatConversationResponse,
  ChatConversationState,
  ChatMessage,
  ChatSessionResponse,
  ChatTexts,
  PhoneCodeResponse,
} from '@svc/contracts';

/** A refusal of the visitor API in the contract's error shape. */
export class ChatApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ReachRequest {
  channel: 'email' | 'whatsapp';
  email?: string;
  phone?: string;
  consent: boolean;
  consent_text: string;
  lang: string;
}

/** What a call that starts a confirmation (of an email, of a phone) also gives: the token the conversation gets once confirmed. */
export interface Successor {
  next_token?: string;
}

/** The visitor API under `{app_url}/chat/v1`, with the visitor token once a session gave one. */
export class ChatApi {
  token = '';
  /**
   * Called when the token is refused (401: rotated, or past its lifetime); the call is made again
   * once with the token it leaves. Unset: the refusal is thrown.
   */
  renew?: () => Promise<void>;

  constructor(readonly base: string) {}

  async session(widget: string, identity: string | undefined, token: string | undefined): Promise<ChatSessionResponse> {
    const body = await this.call<ChatSessionResponse>(
      'POST',
      '/sessions',
      { widget, ...(identity ? { identity } : {}), ...(token ? { token } : {}) },
      false,
    );
    this.token = body.token;
    return body;
  }

  conversation(): Promise<ChatConversationResponse> {
    return this.call('GET', '/conversation');
  }

  async send(text: string): Promise<ChatMessage> {
    return (await this.call<{ message: ChatMessage }>('POST', '/messages', { text })).message;
  }

  handover(): Promise<ChatConversationState> {
    return this.call('POST', '/handover', {});
  }

  reach(request: ReachRequest): Promise<ChatConversationState & Successor> {
    return this.call('POST', '/handover/reach', request);
  }

  /** A booking request for the piece the assistant's last answer cited. */
  async requestBooking(startsAt: string, note: string): Promise<Omit<Booking, 'contact'>> {
    return (await this.call<{ booking: Omit<Booking, 'contact'> }>('POST', '/bookings', { starts_at: startsAt, ...(note ? { note } : {}) }))
      .booking;
  }

  /** A code to send from the customer's phone to the business's WhatsApp number (confirms the number). */
  phoneCode(): Promise<PhoneCodeResponse & Successor> {
    return this.call('POST', '/phone-code', {});
  }

  /** A future-contact consent, with the exact words shown. */
  consent(purpose: 'future_email' | 'future_whatsapp', consentText: string, lang: string): Promise<unknown> {
    return this.call('POST', '/consents', { purpose, consent_text: consentText, lang });
  }

  texts(lang: string): Promise<ChatTexts> {
    return this.call('GET', `/texts?lang=${encodeURIComponent(lang)}`, undefined, false);
  }

  /** Reads the conversation with `token` (undefined when that token is not valid). */
  async conversationWith(token: string): Promise<ChatConversationResponse | undefined> {
    const response = await fetch(`${this.base}/chat/v1/conversation`, { headers: { authorization: `Bearer ${token}` } });
    return response.ok ? ((await response.json()) as ChatConversationResponse) : undefined;
  }

  private async call<T>(method: string, path: string, json?: unknown, auth = true, renewed = false): Promise<T> {
    const headers: Record<string, string> = {};
    if (auth && this.token) headers['authorization'] = `Bearer ${this.token}`;
    if (json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.base}/chat/v1${path}`, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    if (response.status === 401 && auth && this.renew && !renewed) {
      await this.renew();
      return this.call<T>(method, path, json, auth, true);
    }
    const body = (await response.json().catch(() => null)) as (T & { error?: { code: string; message: string } }) | null;
    if (!response.ok || body === null) {
      throw new ChatApiError(response.status, body?.error?.code ?? 'unavailable', body?.error?.message ?? `HTTP ${response.status}`);
    }
    return body;
  }
}
