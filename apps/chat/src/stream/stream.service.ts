import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import { ConversationNotifier } from './conversation-notifier';
import { EventStreams, PING_INTERVAL_MS } from './event-streams';

/** Messages one read returns at most. */
const BATCH = 500;

/**
 * The Server-Sent Events of a conversation: every message after the given id (`id:` = message
 * id, `event: message`), then live ones as they commit; `event: state` when the status or the
 * hand-over changes (and once at the start); `: ping` every 15 s. Messages are read from
 * PostgreSQL after each wake-up, so a stream resumed on any replica with Last-Event-ID misses nothing.
 */
export class StreamService extends EventStreams {
  /** Streams open per conversation id. */
  private readonly conversationsOpen = new Map<number, number>();

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly notifier: ConversationNotifier,
    private readonly logger: Logger,
    pingIntervalMs = PING_INTERVAL_MS,
  ) {
    super(pingIntervalMs);
  }

  get openConversations(): number {
    return this.conversationsOpen.size;
  }

  serve(row: ConversationRow, afterId: number, raw: ServerResponse, headers: Record<string, string>): void {
    this.conversationsOpen.set(row.id, (this.conversationsOpen.get(row.id) ?? 0) + 1);
    let last = afterId;
    let state = '';
    this.openStream(raw, headers, {
      subscribe: (wake) => this.notifier.subscribe(row.id, wake),
      isListening: () => this.notifier.isListening,
      read: async () => {
        const read = await this.conversations.streamRead(row.account_id, row.id, last, BATCH);
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
        return { chunk, more: messages.length === BATCH };
      },
      onError: (err) =>
        this.logger.warn({ conversation_id: row.id, err: (err as Error).message }, 'stream read failed; the next wake-up reads again'),
      onClose: () => {
        const left = (this.conversationsOpen.get(row.id) ?? 1) - 1;
        if (left > 0) this.conversationsOpen.set(row.id, left);
        else this.conversationsOpen.delete(row.id);
      },
    });
  }
}
