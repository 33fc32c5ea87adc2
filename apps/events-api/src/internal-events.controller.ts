import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContext } from '@svc/contracts';
import { Caller, InternalCallers } from '@svc/platform';
import { EventsService } from './events.service';

/** `GET /internal/events/by-uuid/{uuid}`: the feed id of a producer's event, 404 until recorded (for `admin trigger`). */
@ApiExcludeController()
@Controller('internal/events')
@InternalCallers('admin')
export class InternalEventsController {
  constructor(private readonly events: EventsService) {}

  @Get('by-uuid/:uuid')
  byUuid(@Caller() caller: GatewayContext, @Param('uuid') uuid: string): Promise<{ id: number }> {
    return this.events.idOf(caller.account.id, uuid);
  }
}
