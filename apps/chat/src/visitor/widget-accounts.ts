import { Injectable } from '@nestjs/common';
import { WidgetAccountResponse } from '@svc/contracts';
import { WidgetsClient } from '@svc/internal-clients';
import { LRUCache } from 'lru-cache';

type Account = WidgetAccountResponse['account'];
interface Lookup {
  account: Account | null;
}

/** How long a widget's account is remembered in a process (an unknown widget id too). */
const TTL_MS = 60_000;

/** widget id → account, asked of the gateway (owner of accounts) and cached for a minute. */
@Injectable()
export class WidgetAccounts {
  private readonly cache: LRUCache<string, Lookup, string>;

  constructor(client: WidgetsClient) {
    this.cache = new LRUCache<string, Lookup, string>({
      max: 10_000,
      ttl: TTL_MS,
      fetchMethod: async (widget, _stale, { context }) => ({ account: await client.account(widget, context) }),
    });
  }

  async resolve(widget: string, requestId: string): Promise<Account | null> {
    const lookup = await this.cache.fetch(widget, { context: requestId });
    return lookup?.account ?? null;
  }
}
