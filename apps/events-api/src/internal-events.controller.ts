import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContext } from '@svc/contracts';
import { Caller } from '@svc/platform';
import { EventsService } from './events.service';

/**
 * Internal: `GET /internal/events/by-uuid/{uuid}` → `{"id"}`, the feed id of the caller's event
 * with this producer UUID, or 404 until it is recorded. `admin trigger` waits on it to print the id
 * a receiver and a feed reader see. Needs the signed context (audience events-api).
 */
@ApiExcludeController()
@Controller('internal/events')
export class InternalEventsController {
  constructor(private readonly events: EventsService) {}

  @Get('by-uuid/:uuid')
  byUuid(@Caller() caller: GatewayContext, @Param('uuid') uuid: string): Promise<{ id: number }> {
    return this.events.idOf(caller.account.id, uuid);
  }
}
