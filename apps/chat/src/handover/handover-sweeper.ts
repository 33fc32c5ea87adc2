import { Inject, Injectable } from '@nestjs/common';
import { Sweep } from '@svc/jobs';
import { InjectLogger } from '@svc/platform';
import type { Logger } from 'pino';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { textsFor } from '../texts/texts';
import { HANDOVER_SWEEP_INTERVAL_MS } from '../chat.tokens';

const BATCH = 100;

/**
 * The end of the wait for a person: conversations still `waiting` when their `HANDOVER_WAIT` ran
 * out move to `ask_reach`, with a system message asking how to reach the customer (both on the
 * stream). Any replica may do it: each pass locks due conversations with SKIP LOCKED.
 */
@Injectable()
export class HandoverSweeper extends Sweep {
  constructor(
    private readonly conversations: ConversationsRepository,
    @Inject(HANDOVER_SWEEP_INTERVAL_MS) intervalMs: number,
    @InjectLogger('handover') logger: Logger,
  ) {
    super(intervalMs, logger, 'hand-over sweep failed; next pass retries');
  }

  /** How many conversations moved on. */
  protected pass(): Promise<number> {
    return this.conversations.transaction(async (tx) => {
      const due = await tx.lockDueHandovers(BATCH);
      for (const row of due) {
        await tx.setHandover(row.account_id, row.id, { status: 'needs_human', handover: 'ask_reach' });
        await tx.addMessage(row.account_id, row.id, { author: 'system', text: textsFor(row.lang).ask_reach });
      }
      return due.length;
    });
  }
}
