import { Inject, Injectable } from '@nestjs/common';
import { ApiError, APP_CONFIG, clientOf } from '@svc/platform';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ChatConfig } from '../chat.config';

/**
 * New conversations per visitor address (an IPv6 /64 counts as one), so that one client cannot
 * fill an account's inbox and customers with empty chats. Counted in this process's memory: with
 * n replicas behind a balancer an address gets at most n times the limit, enough to stop a flood
 * without a shared store in the visitor path.
 */
@Injectable()
export class NewConversationThrottle {
  private readonly limiter: RateLimiterMemory;

  constructor(@Inject(APP_CONFIG) config: Pick<ChatConfig, 'VISITOR_CONVERSATIONS_PER_ADDRESS' | 'VISITOR_CONVERSATION_WINDOW_MS'>) {
    this.limiter = new RateLimiterMemory({
      keyPrefix: 'new-conversations',
      points: config.VISITOR_CONVERSATIONS_PER_ADDRESS,
      duration: Math.max(Math.ceil(config.VISITOR_CONVERSATION_WINDOW_MS / 1000), 1),
    });
  }

  /** Counts one new conversation of `address`; 429 `rate_limited` with Retry-After past the limit. */
  async take(address: string): Promise<void> {
    try {
      await this.limiter.consume(clientOf(address));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(Math.ceil(rejection.msBeforeNext / 1000), 1);
      throw new ApiError('rate_limited', `Too many new conversations from this address; try again in ${seconds} s.`, undefined, {
        'retry-after': String(seconds),
      });
    }
  }
}
