import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RecordedEvent } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { DeliveryService } from './delivery.service';
import { InvalidRecordedEventError } from './recorded-event';

/**
 * Internal: `POST /internal/events` with a recorded event, the same call the events consumer
 * makes. For tests, benchmarks and operators re-feeding an event; needs the signed context.
 */
@ApiExcludeController()
@Controller('internal/events')
export class InternalEventsController {
  constructor(private readonly deliveries: DeliveryService) {}

  @Post()
  @HttpCode(204)
  async record(@Body() body: unknown): Promise<void> {
    try {
      await this.deliveries.recordEvent(body as RecordedEvent);
    } catch (err) {
      if (err instanceof InvalidRecordedEventError) throw new ApiError('validation_failed', err.message);
      throw err;
    }
  }
}
