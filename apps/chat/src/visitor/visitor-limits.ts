import { Injectable, Optional } from '@nestjs/common';
import { Columns } from '@svc/persistence';
import { ApiError } from '@svc/platform';
import { DataSource } from 'typeorm';
import { ConversationRow } from '../conversations/conversations.repository';
import type { VisitorLimits as VisitorLimitsTable } from '../schema.generated';
import { prepared, queryRows } from '../statements';

/** What a visitor does that writes for the business (events, webhooks) and is bounded per conversation. */
export type VisitorAction = 'consent' | 'booking' | 'handover' | 'phone_code';

/** Per conversation and hour: far above what a real visitor does, low enough that a loop writes little. */
export const VISITOR_ACTIONS_PER_HOUR: Readonly<Record<VisitorAction, number>> = { consent: 10, booking: 10, handover: 10, phone_code: 10 };

const WORDS: Record<VisitorAction, string> = {
  consent: 'consents',
  booking: 'booking requests',
  handover: 'requests for a person',
  phone_code: 'phone codes',
};

/**
 * Counts one use; returns the count (at most limit + 1) and the window's end. One statement: exact at
 * once and across replicas. A transaction that waited on the row sees a window started after its own
 * `now()`, so the wait is capped at the window.
 */
const TAKE = prepared('chat_visitor_limit_take')`
  INSERT INTO chat.visitor_limits AS l (conversation_id, action, window_start, used) VALUES ($1, $2, now(), 1)
         ON CONFLICT (conversation_id, action) DO UPDATE
            SET window_start = CASE WHEN l.window_start <= now() - $3 * interval '1 millisecond' THEN now() ELSE l.window_start END,
                used = CASE WHEN l.window_start <= now() - $3 * interval '1 millisecond' THEN 1 ELSE least(l.used + 1, $4 + 1) END
         RETURNING used, least(ceil(extract(epoch FROM window_start + $3 * interval '1 millisecond' - now())), ceil($3 / 1000.0))::int AS retry_after_s`;

/** The per-conversation limits of a visitor's writes, counted in PostgreSQL (fixed windows). */
@Injectable()
export class VisitorLimits {
  constructor(
    private readonly db: DataSource,
    @Optional() private readonly limits: Readonly<Record<VisitorAction, number>> = VISITOR_ACTIONS_PER_HOUR,
    @Optional() private readonly windowMs: number = 3_600_000,
  ) {}

  /** Counts one `action` of the conversation; past its limit 429 `rate_limited` with Retry-After, and the caller does nothing. */
  async take(visitor: ConversationRow, action: VisitorAction): Promise<void> {
    const limit = this.limits[action];
    const [row] = await queryRows<Columns<VisitorLimitsTable, 'used'> & { retry_after_s: number }>(this.db, TAKE, [
      visitor.id,
      action,
      this.windowMs,
      limit,
    ]);
    if (!row || row.used <= limit) return;
    const seconds = Math.max(row.retry_after_s, 1);
    throw new ApiError(
      'rate_limited',
      `At most ${limit} ${WORDS[action]} per conversation an hour; try again in ${seconds} s.`,
      undefined,
      {
        'retry-after': String(seconds),
      },
    );
  }
}
