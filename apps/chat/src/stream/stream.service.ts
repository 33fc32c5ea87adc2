import { Inject, Injectable, Optional } from '@nestjs/common';
import { ApiError, InjectLogger } from '@svc/platform';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ChatMessage } from '@svc/contracts';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { ConversationNotifier } from './conversation-notifier';
import { EventStreams, PING_INTERVAL_MS } from './event-streams';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { StreamLease, StreamSlots } from './stream-slots';

/** Messages one read returns at most. */
const BATCH = 500;

/** What a refused stream is told to wait: a slot frees when one of the open streams closes. */
const RETRY_AFTER_SECONDS = 10;

const refused = (code: 'rate_limited' | 'unavailable', message: string) =>
  new ApiError(code, message, undefined, { 'retry-after': String(RETRY_AFTER_SECONDS) });

/**
 * The Server-Sent Events of a conversation: every message after the given id (`id:` = message
 * id, `event: message`), then live ones as they commit; `event: state` when the status or the
 * hand-over changes (and once at the start); `: ping` every 15 s. A new message that came with its
 * wake-up is written as it came when it follows the last one written; anything else is read from
 * PostgreSQL, so a stream resumed on any replica with Last-Event-ID misses nothing.
 */
@Injectable()
export class StreamService extends EventStreams {
  /** Streams open on this process per conversation id. */
  private readonly conversationsOpen = new Map<number, number>();
  private readonly maxStreams: number;
  /** Streams whose slots are being taken: counted against the process's cap already. */
  private opening = 0;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly notifier: ConversationNotifier,
    private readonly slots: StreamSlots,
    @InjectLogger('streams') private readonly logger: Logger,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'CHAT_MAX_STREAMS'>,
    @Optional() pingIntervalMs: number = PING_INTERVAL_MS,
  ) {
    super(pingIntervalMs);
    this.maxStreams = config.CHAT_MAX_STREAMS;
  }

  get openConversations(): number {
    return this.conversationsOpen.size;
  }

  /**
   * Opens the stream, or refuses it before anything is written: 503 past the process's cap (counted
   * in this process: a replica never takes more than it can hold); 429 past the streams of its
   * token, its address or its account (`StreamSlots`, across replicas); 503 while Redis is down.
   */
  async serve(row: ConversationRow, address: string, afterId: number, raw: ServerResponse, headers: Record<string, string>): Promise<void> {
    if (this.openStreams + this.opening >= this.maxStreams)
      throw refused('unavailable', 'The chat is at its limit of open streams; try again shortly.');
    let lease: StreamLease | { refused: string };
    this.opening += 1;
    try {
      lease = await this.slots.take(row, address);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'stream refused: its slots could not be counted');
      throw refused('unavailable', 'Open streams cannot be counted right now; try again shortly.');
    } finally {
      this.opening -= 1;
    }
    if ('refused' in lease) throw refused('rate_limited', lease.refused);
    const taken = lease;
    // The visitor may have gone while the slots were taken: nothing to open then.
    if (raw.destroyed) return void this.slots.release(taken);
    count(this.conversationsOpen, row.id, 1);
    let last = afterId;
    let state = '';
    // Messages that came with their wake-up, and whether a wake-up without one asks for a read.
    const pushed: ChatMessage[] = [];
    let mustRead = true;
    this.openStream(raw, headers, {
      subscribe: (wake) =>
        this.notifier.subscribe(row.id, (message) => {
          if (message) pushed.push(message);
          else mustRead = true;
          wake();
        }),
      isListening: () => this.notifier.isListening,
      read: async () => {
        const next = mustRead || !this.notifier.isListening ? null : consecutive(pushed.splice(0), last);
        if (next) {
          last = next.at(-1)?.id ?? last;
          return { chunk: next.map(messageEvent).join(''), more: false };
        }
        mustRead = false;
        const read = await this.conversations.streamRead(row.account_id, row.id, last, BATCH);
        // Its token was rotated (the conversation became a customer's): the stream ends, the old token reads nothing more.
        if (read && row.token_issued_at !== undefined && read.tokenIssuedAt !== row.token_issued_at) {
          raw.end();
          return { chunk: '', more: false };
        }
        const messages = read?.messages ?? [];
        let chunk = '';
        for (const message of messages) {
          chunk += messageEvent(message);
          last = message.id;
        }
        const now = read ? JSON.stringify(read.state) : state;
        if (now !== state) {
          chunk += `event: state\ndata: ${now}\n\n`;
          state = now;
        }
        return { chunk, more: messages.length === BATCH };
      },
      onError: (err) =>
        this.logger.warn({ conversation_id: row.id, err: (err as Error).message }, 'stream read failed; the next wake-up reads again'),
      onClose: () => {
        count(this.conversationsOpen, row.id, -1);
        void this.slots.release(taken);
      },
    });
  }
}

const messageEvent = (message: ChatMessage): string => `id: ${message.id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;

/** The pushed messages after `last`, if they follow it without a gap (else null: read PostgreSQL). */
function consecutive(pushed: ChatMessage[], last: number): ChatMessage[] | null {
  const after = pushed.filter((message) => message.id > last);
  return after.every((message, i) => message.id === last + 1 + i) ? after : null;
}

/** Adds `by` to a key's count; a count of 0 is removed. */
function count<K>(counts: Map<K, number>, key: K, by: number): void {
  const now = (counts.get(key) ?? 0) + by;
  if (now > 0) counts.set(key, now);
  else counts.delete(key);
}
