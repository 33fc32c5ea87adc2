import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@svc/platform';
import { LRUCache } from 'lru-cache';
import { WidgetSettingsRepository } from '../settings/widget-settings.repository';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';

/** Settings changes reach every replica within this time. */
const TTL_MS = 5_000;

/**
 * Allowed origins per account: when an account lists some, its widget's API answers only pages of
 * those origins (and the product's own, `APP_URL`: the demo page and the console). No list: any
 * page may embed the widget. A call without `Origin` is not from a page script and passes (a
 * server can send any Origin it likes anyway: this protects the account's visitors, not a secret).
 */
@Injectable()
export class OriginPolicy {
  private readonly cache: LRUCache<string, { origins: string[] }>;
  private readonly ownOrigin: string;

  constructor(
    private readonly settings: WidgetSettingsRepository,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'APP_URL'>,
  ) {
    this.ownOrigin = new URL(config.APP_URL).origin;
    this.cache = new LRUCache<string, { origins: string[] }>({
      max: 10_000,
      ttl: TTL_MS,
      fetchMethod: async (accountId) => ({ origins: await this.settings.allowedOrigins(accountId) }),
    });
  }

  async check(accountId: string, origin: string | undefined): Promise<void> {
    if (origin === undefined || origin === this.ownOrigin) return;
    const allowed = (await this.cache.fetch(accountId))?.origins ?? [];
    if (allowed.length > 0 && !allowed.includes(origin)) {
      throw new ApiError('forbidden_origin', `This chat does not answer pages of ${origin}; the business allows it on its own sites only.`);
    }
  }

  /** After a change in this process: the next check reads it. */
  forget(accountId: string): void {
    this.cache.delete(accountId);
  }
}
