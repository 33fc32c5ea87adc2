import { InjectLogger } from '@svc/platform';
import { Injectable, Optional } from '@nestjs/common';
import { InboxStreamEvent } from '@svc/contracts';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ConversationNotifier } from '../stream/conversation-notifier';
import { EventStreams, PING_INTERVAL_MS } from '../stream/event-streams';
import { InboxRepository } from './inbox.repository';

/**
 * How far back each read looks again: a change's `updated_at` is its transaction's start, so a
 * change may commit after a later-stamped one; a transaction of the chat lasts far less than this.
 */
export const INBOX_OVERLAP_MICROS = 10_000_000n;
const BATCH = 500;

const microsOf = (cursor: string): bigint => BigInt(cursor.split('.')[0] as string);

/**
 * The account-wide Server-Sent Events of the inbox: `event: conversation` with
 * `{conversation_id, last_message_id, updated_at}` whenever a conversation of the account changes
 * (a message, its status), `id:` = the change's cursor. Resumed with `Last-Event-ID`: every change
 * from that cursor on (a change near it may come twice; the console reads the conversation again,
 * which is harmless). Without it: the changes of the last few seconds, then live ones. Woken by
 * LISTEN/NOTIFY, reads PostgreSQL, polls while the listener is down.
 */
@Injectable()
export class InboxStreamService extends EventStreams {
  constructor(
    private readonly inbox: InboxRepository,
    private readonly notifier: ConversationNotifier,
    @InjectLogger('inbox-streams') private readonly logger: Logger,
    @Optional() pingIntervalMs: number = PING_INTERVAL_MS,
  ) {
    super(pingIntervalMs);
  }

  serve(accountId: string, resumeCursor: string | undefined, raw: ServerResponse, headers: Record<string, string>): void {
    // The newest change reported so far, and what was reported inside the overlap (id → cursor).
    let since = resumeCursor ? microsOf(resumeCursor) : BigInt(Date.now()) * 1000n - INBOX_OVERLAP_MICROS;
    const reported = new Map<number, string>();
    if (resumeCursor) reported.set(Number(resumeCursor.split('.')[1]), resumeCursor);
    this.openStream(raw, headers, {
      subscribe: (wake) => this.notifier.subscribeAccount(accountId, wake),
      isListening: () => this.notifier.isListening,
      read: async () => {
        const changes = await this.inbox.changes(accountId, since - INBOX_OVERLAP_MICROS, BATCH);
        let chunk = '';
        for (const change of changes) {
          if (reported.get(change.id) === change.cursor) continue;
          reported.set(change.id, change.cursor);
          const event: InboxStreamEvent = {
            conversation_id: change.id,
            last_message_id: change.last_message_id,
            updated_at: change.updated_at,
          };
          chunk += `id: ${change.cursor}\nevent: conversation\ndata: ${JSON.stringify(event)}\n\n`;
          const micros = microsOf(change.cursor);
          if (micros > since) since = micros;
        }
        for (const [id, cursor] of reported) if (microsOf(cursor) < since - INBOX_OVERLAP_MICROS) reported.delete(id);
        return { chunk, more: chunk !== '' && changes.length === BATCH };
      },
      onError: (err) =>
        this.logger.warn({ account_id: accountId, err: (err as Error).message }, 'inbox stream read failed; the next wake-up reads again'),
    });
  }
}
