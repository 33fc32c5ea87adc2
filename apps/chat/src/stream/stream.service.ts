import { BeforeApplicationShutdown } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { ConversationNotifier } from './conversation-notifier';

/** A comment line this often keeps proxies and the visitor's connection from timing out. */
export const PING_INTERVAL_MS = 15_000;
/** While the LISTEN connection is down, streams read this often instead. */
const POLL_INTERVAL_MS = 2_000;

/**
 * The Server-Sent Events of a conversation: every message after the given id (`id:` = message
 * id, `event: message`), then live ones as they commit; `event: state` when the status or the
 * hand-over changes (and once at the start); `: ping` every 15 s. Messages are read from
 * PostgreSQL after each wake-up, so a stream resumed on any replica with Last-Event-ID misses nothing.
 */
export class StreamService implements BeforeApplicationShutdown {
  private readonly open = new Set<ServerResponse>();
  /** Streams open per conversation id. */
  private readonly conversationsOpen = new Map<number, number>();

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly notifier: ConversationNotifier,
    private readonly logger: Logger,
    private readonly pingIntervalMs = PING_INTERVAL_MS,
  ) {}

  get openStreams(): number {
    return this.open.size;
  }

  get openConversations(): number {
    return this.conversationsOpen.size;
  }

  serve(row: ConversationRow, afterId: number, raw: ServerResponse, headers: Record<string, string>): void {
    raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    raw.flushHeaders();
    this.open.add(raw);
    this.conversationsOpen.set(row.id, (this.conversationsOpen.get(row.id) ?? 0) + 1);
    let last = afterId;
    let state = '';
    let running = false;
    let again = false;
    let closed = false;

    const pump = async (): Promise<void> => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          const read = await this.conversations.streamRead(row.account_id, row.id, last);
          if (closed) return;
          const messages = read?.messages ?? [];
          let chunk = '';
          for (const message of messages) {
            chunk += `id: ${message.id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
            last = message.id;
          }
          const now = read ? JSON.stringify(read.state) : state;
          if (now !== state) {
            chunk += `event: state\ndata: ${now}\n\n`;
            state = now;
          }
          if (chunk) raw.write(chunk);
          if (messages.length === 500) again = true;
        } while (again && !closed);
      } catch (err) {
        this.logger.warn({ conversation_id: row.id, err: (err as Error).message }, 'stream read failed; the next wake-up reads again');
      } finally {
        running = false;
      }
    };

    const unsubscribe = this.notifier.subscribe(row.id, () => void pump());
    const ping = setInterval(() => raw.write(': ping\n\n'), this.pingIntervalMs);
    const poll = setInterval(() => {
      if (!this.notifier.isListening) void pump();
    }, POLL_INTERVAL_MS);
    raw.once('close', () => {
      closed = true;
      unsubscribe();
      clearInterval(ping);
      clearInterval(poll);
      this.open.delete(raw);
      const left = (this.conversationsOpen.get(row.id) ?? 1) - 1;
      if (left > 0) this.conversationsOpen.set(row.id, left);
      else this.conversationsOpen.delete(row.id);
    });
    void pump();
  }

  /** On shutdown, ends every stream: the widgets reconnect (to another replica) with Last-Event-ID. */
  beforeApplicationShutdown(): void {
    for (const raw of this.open) raw.end();
  }
}
