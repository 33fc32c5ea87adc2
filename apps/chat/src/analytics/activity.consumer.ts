import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DomainMessage } from '@svc/contracts';
import { ConsumeEvent, InvalidMessageError, parseDomainMessage } from '@svc/messaging';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { AnalyticsRepository } from './analytics.repository';

const KINDS = ['contact.confirmed', 'consent.granted', 'consent.withdrawn'] as const;
type ActivityKind = (typeof KINDS)[number];

/** The figure an activity counts under: the confirmed channel, or the consent's purpose. */
export function activityDetail(message: DomainMessage<ActivityKind>): string {
  const data = message.data as { confirmed?: unknown; consent?: { purpose?: unknown } };
  const detail = message.kind === 'contact.confirmed' ? data.confirmed : data.consent?.purpose;
  if (typeof detail !== 'string' || !/^[a-z_]{1,64}$/.test(detail))
    throw new InvalidMessageError(`invalid ${message.kind}: no confirmed channel or consent purpose`);
  return detail;
}

/**
 * contacts-api's confirmations and consent changes (from the domain exchange), recorded for the
 * analytics: kind, channel or purpose, time; once per event id.
 */
@Controller()
export class ActivityConsumer {
  constructor(
    private readonly analytics: AnalyticsRepository,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  @ConsumeEvent('contact.confirmed')
  confirmed(@Payload() payload: unknown): Promise<void> {
    return this.record(payload);
  }

  @ConsumeEvent('consent.granted')
  granted(@Payload() payload: unknown): Promise<void> {
    return this.record(payload);
  }

  @ConsumeEvent('consent.withdrawn')
  withdrawn(@Payload() payload: unknown): Promise<void> {
    return this.record(payload);
  }

  private async record(payload: unknown): Promise<void> {
    const message = parseDomainMessage(payload, KINDS);
    await this.analytics.recordActivity({
      eventId: message.id,
      accountId: message.account_id,
      kind: message.kind,
      detail: activityDetail(message),
      at: message.at,
    });
    this.logger.debug({ account_id: message.account_id, kind: message.kind }, 'recorded contact activity');
  }
}
