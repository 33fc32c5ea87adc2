import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RecordedEvent } from '@svc/contracts';
import { ApiError, InternalCallers } from '@svc/platform';
import { DeliveryService } from '../delivery/delivery.service';
import { InvalidRecordedEventError } from '../delivery/recorded-event';

/**
 * Test builds only (`loadTestSupport`: NODE_ENV=test, never in a production build or an image):
 * `POST /internal/events` with a recorded event, the same call the events consumer makes, so that
 * end-to-end suites (`feedEvents` in libs/testing) feed the dispatcher without events-api. Needs
 * the signed context.
 */
@ApiExcludeController()
@Controller('internal/events')
@InternalCallers('gateway')
export class TestEventsController {
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
