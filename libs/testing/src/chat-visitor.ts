import type { ChatConversationState, ChatMessage, ChatSessionResponse, InboxStreamEvent } from '@svc/contracts';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** One Server-Sent Event as the widget reads it. */
export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/** An open `GET /chat/v1/stream`, read with fetch like the widget does (Authorization header). */
export class ChatStream {
  readonly events: StreamEvent[] = [];
  readonly comments: string[] = [];
  private readonly abort = new AbortController();
  private done?: Promise<void>;
  status = 0;

  static async open(url: string, token: string, headers: Record<string, string> = {}): Promise<ChatStream> {
    const stream = new ChatStream();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: stream.abort.signal });
    stream.status = response.status;
    if (response.body) stream.done = stream.read(response.body).catch(() => undefined);
    return stream;
  }

  messages(): ChatMessage[] {
    return this.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data) as ChatMessage);
  }

  states(): Array<Pick<ChatConversationState, 'status' | 'handover'>> {
    return this.events
      .filter((e) => e.event === 'state')
      .map((e) => JSON.parse(e.data) as Pick<ChatConversationState, 'status' | 'handover'>);
  }

  /** Waits until a message passes `test` (its first match). */
  async waitForMessage(test: (message: ChatMessage) => boolean, timeoutMs = 20_000): Promise<ChatMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages().find(test);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no such message on the stream within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await sleep(25);
    }
  }

  async waitForState(test: (state: Pick<ChatConversationState, 'status' | 'handover'>) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.states().some(test)) {
      if (Date.now() > deadline)
        throw new Error(`no such state on the stream within ${timeoutMs} ms; got ${JSON.stringify(this.states())}`);
      await sleep(25);
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: StreamEvent = { event: 'message', data: '' };
        let isComment = true;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) {
            this.comments.push(line.slice(1).trim());
            continue;
          }
          isComment = false;
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') event.id = value;
          else if (field === 'event') event.event = value;
          else if (field === 'data') event.data = event.data ? `${event.data}\n${value}` : value;
        }
        if (!isComment) this.events.push(event);
      }
    }
  }
}

/** A visitor of a business's page, calling the chat's visitor API through `{app_url}/chat/v1`. */
export class ChatVisitor {
  token = '';

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** `POST /chat/v1/sessions`; keeps the token it gets. */
  async session(body: { widget: string; identity?: string; token?: string }): Promise<{ status: number; body: ChatSessionResponse }> {
    const response = await this.call('/sessions', { method: 'POST', json: body, auth: false });
    const json = (await response.json()) as ChatSessionResponse;
    if (response.ok) this.token = json.token;
    return { status: response.status, body: json };
  }

  /** `POST /chat/v1/messages` → the customer's message. */
  async send(text: string): Promise<ChatMessage> {
    const response = await this.call('/messages', { method: 'POST', json: { text } });
    if (response.status !== 201) throw new Error(`send: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { message: ChatMessage }).message;
  }

  stream(query = '', headers: Record<string, string> = {}): Promise<ChatStream> {
    return ChatStream.open(`${this.baseUrl}/chat/v1/stream${query}`, this.token, { ...this.headers, ...headers });
  }

  call(path: string, init: { method?: string; json?: unknown; auth?: boolean; headers?: Record<string, string> } = {}): Promise<Response> {
    return fetch(`${this.baseUrl}/chat/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...this.headers,
        ...(init.auth === false || !this.token ? {} : { authorization: `Bearer ${this.token}` }),
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  }
}

/** The Server-Sent Events of the inbox stream, as the console reads them. */
export class InboxEvents {
  readonly events: Array<{ id: string; data: InboxStreamEvent }> = [];
  private readonly done: Promise<void>;

  constructor(body: Readable) {
    this.done = (async () => {
      let buffer = '';
      for await (const chunk of body) {
        buffer += (chunk as Buffer).toString('utf8');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id && data && /^event: conversation$/m.test(block)) this.events.push({ id, data: JSON.parse(data) as InboxStreamEvent });
        }
      }
    })().catch(() => undefined);
  }

  async waitFor(test: (event: InboxStreamEvent) => boolean, timeoutMs = 20_000): Promise<{ id: string; data: InboxStreamEvent }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find((e) => test(e.data));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such inbox event within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await sleep(25);
    }
  }

  async closed(): Promise<void> {
    await this.done;
  }
}
