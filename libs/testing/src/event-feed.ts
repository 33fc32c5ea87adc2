import { PublicEvent } from '@svc/contracts';
import { Stack } from './stack';

/** Every event of an account's feed so far (`key`: its API key, default the stack's first account's), page by page. */
export async function readFeed(stack: Stack, key?: string): Promise<PublicEvent[]> {
  const all: PublicEvent[] = [];
  let after = 0;
  for (;;) {
    const page = (await (await stack.call(`/events?after=${after}&limit=200`, { key })).json()) as {
      events: PublicEvent[];
      next_after: number;
      more: boolean;
    };
    all.push(...page.events);
    after = page.next_after;
    if (!page.more) return all;
  }
}
