import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContext } from '@svc/contracts';
import { ApiError, Caller } from '@svc/platform';
import { EventLog } from './event-log';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Internal: `GET /internal/events/by-uuid/{uuid}` → `{"id"}`, the feed id of the caller's event
 * with this producer UUID, or 404 until it is recorded. `admin trigger` waits on it to print the id
 * a receiver and a feed reader see. Needs the signed context (audience events-api).
 */
@ApiExcludeController()
@Controller('internal/events')
export class InternalEventsController {
  constructor(private readonly log: EventLog) {}

  @Get('by-uuid/:uuid')
  async byUuid(@Caller() caller: GatewayContext, @Param('uuid') uuid: string): Promise<{ id: number }> {
    const id = UUID.test(uuid) ? await this.log.idOf(caller.account.id, uuid) : undefined;
    if (id === undefined) throw new ApiError('not_found', `No event ${uuid} is recorded (yet).`);
    return { id };
  }
}
