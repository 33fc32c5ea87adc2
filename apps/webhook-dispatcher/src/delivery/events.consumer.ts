import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EVENT_KINDS, RecordedEvent } from '@svc/contracts';
import { ConsumeEvent, InvalidMessageError } from '@svc/messaging';
import { DeliveryService } from './delivery.service';
import { InvalidRecordedEventError } from './recorded-event';

/**
 * Recorded events from events-api become deliveries. The message is acknowledged after the
 * deliveries committed; a redelivered message adds nothing. A malformed one is parked.
 */
@Controller()
export class EventsConsumer {
  constructor(private readonly deliveries: DeliveryService) {}

  @ConsumeEvent(EVENT_KINDS)
  async record(@Payload() payload: unknown): Promise<void> {
    try {
      await this.deliveries.recordEvent(payload as RecordedEvent);
    } catch (err) {
      if (err instanceof InvalidRecordedEventError) throw new InvalidMessageError(`invalid recorded event: ${err.message}`);
      throw err;
    }
  }
}
