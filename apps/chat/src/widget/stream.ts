import type { ChatConversationState, ChatMessage } from '@svc/contracts';

export type StreamState = Pick<ChatConversationState, 'status' | 'handover'>;

export interface StreamHandlers {
  /** The id of the last message the widget has: the stream resumes after it. */
  lastId(): number;
  message(message: ChatMessage): void;
  state(state: StreamState): void;
  /** The token is no longer valid (401/404): the widget starts a new session. */
  refused(): void;
}

/** One Server-Sent Event. */
interface SseEvent {
  event: string;
  data: string;
}

/** Splits a chunked SSE body into events; comments (`: ping`) are dropped. */
export class SseParser {
  private buffer = '';

  push(text: string): SseEvent[] {
    this.buffer += text.replace(/\r\n?/g, '\n');
    const events: SseEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) events.push({ event, data: data.join('\n') });
    }
    return events;
  }
}

/** Backoff after the n-th failed attempt in a row: 1 s, 2 s, 4 s … up to 30 s, with jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/**
 * Reads `GET /chat/v1/stream` with fetch + ReadableStream (so the Authorization header can be
 * sent), resumes with `Last-Event-ID`, and reconnects with backoff until stopped.
 */
export class ConversationStream {
  private abort?: AbortController;
  private stopped = false;
  private timer?: ReturnType<typeof setTimeout>;
  private failures = 0;

  constructor(
    private readonly base: string,
    private readonly token: string,
    private readonly handlers: StreamHandlers,
  ) {}

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.abort = new AbortController();
    try {
      const response = await fetch(`${this.base}/chat/v1/stream`, {
        headers: { authorization: `Bearer ${this.token}`, 'last-event-id': String(this.handlers.lastId()), accept: 'text/event-stream' },
        signal: this.abort.signal,
        cache: 'no-store',
      });
      if (response.status === 401 || response.status === 404) {
        this.stopped = true;
        this.handlers.refused();
        return;
      }
      if (!response.ok || !response.body) throw new Error(`stream: HTTP ${response.status}`);
      this.failures = 0;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) this.dispatch(event);
      }
    } catch {
      this.failures += 1;
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.connect(), this.failures === 0 ? 500 : backoffMs(this.failures - 1));
  }

  private dispatch(event: SseEvent): void {
    try {
      if (event.event === 'message') this.handlers.message(JSON.parse(event.data) as ChatMessage);
      else if (event.event === 'state') this.handlers.state(JSON.parse(event.data) as StreamState);
    } catch {
      // a malformed event is skipped; the next reconnect resumes from the last good id
    }
  }
}
