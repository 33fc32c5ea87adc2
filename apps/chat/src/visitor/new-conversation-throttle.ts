import { Inject, Injectable } from '@nestjs/common';
import { Columns } from '@svc/persistence';
import { ApiError, clientOf } from '@svc/platform';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import type { NewConversationCounts } from '../schema.generated';
import { prepared, queryRows } from '../statements';

/** Windows that ended this long ago are deleted by the next counts, a few rows each: the table keeps only live windows. */
const SWEPT_PER_TAKE = 10;

/**
 * Counts one new conversation of an address (a hash of it) and returns the count (at most limit +
 * 1) and the window's end; deletes a few windows that ended (not this address's). One statement:
 * exact at once and across replicas, and all or nothing when the database goes away during it.
 */
const TAKE = prepared('chat_new_conversation_take')`WITH swept AS (
           DELETE FROM chat.new_conversation_counts WHERE client_hash IN (
             SELECT client_hash FROM chat.new_conversation_counts
              WHERE window_start <= now() - $2 * interval '1 millisecond' AND client_hash <> $1
              LIMIT ${SWEPT_PER_TAKE} FOR UPDATE SKIP LOCKED))
         INSERT INTO chat.new_conversation_counts AS c (client_hash, window_start, used) VALUES ($1, now(), 1)
         ON CONFLICT (client_hash) DO UPDATE
            SET window_start = CASE WHEN c.window_start <= now() - $2 * interval '1 millisecond' THEN now() ELSE c.window_start END,
                used = CASE WHEN c.window_start <= now() - $2 * interval '1 millisecond' THEN 1 ELSE least(c.used + 1, $3 + 1) END
         RETURNING used, least(ceil(extract(epoch FROM window_start + $2 * interval '1 millisecond' - now())), ceil($2 / 1000.0))::int AS retry_after_s`;

/**
 * New conversations per visitor address (an IPv6 /64 counts as one), so that one client cannot
 * fill an account's inbox and customers with empty chats. Counted in PostgreSQL (fixed windows from
 * the first new conversation), so the limit holds across replicas; the address is stored hashed.
 * The database down: the count fails and so does the new conversation (503, nothing written).
 */
@Injectable()
export class NewConversationThrottle {
  constructor(
    private readonly db: DataSource,
    @Inject(CHAT_CONFIG) private readonly config: Pick<ChatConfig, 'VISITOR_CONVERSATIONS_PER_ADDRESS' | 'VISITOR_CONVERSATION_WINDOW_MS'>,
  ) {}

  /** Counts one new conversation of `address`; 429 `rate_limited` with Retry-After past the limit. */
  async take(address: string): Promise<void> {
    const limit = this.config.VISITOR_CONVERSATIONS_PER_ADDRESS;
    const windowMs = Math.max(Math.ceil(this.config.VISITOR_CONVERSATION_WINDOW_MS / 1000), 1) * 1000;
    const client = createHash('sha256').update(clientOf(address)).digest();
    const [row] = await queryRows<Columns<NewConversationCounts, 'used'> & { retry_after_s: number }>(this.db, TAKE, [
      client,
      windowMs,
      limit,
    ]);
    if (!row || row.used <= limit) return;
    const seconds = Math.max(row.retry_after_s, 1);
    throw new ApiError('rate_limited', `Too many new conversations from this address; try again in ${seconds} s.`, undefined, {
      'retry-after': String(seconds),
    });
  }
}
