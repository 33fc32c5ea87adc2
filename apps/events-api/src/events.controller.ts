import { Controller, Header, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { API_ROUTES, EventsPageDto, EventsQueryDto, GatewayContext } from '@svc/contracts';
import { ApiInvalidQueryResponse, Caller, InternalCallers, Route } from '@svc/platform';
import { EventsService } from './events.service';

@ApiTags('Events')
@Controller()
@InternalCallers('gateway', 'mcp-server')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Route(API_ROUTES.events.list)
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'The event feed: events after a given id, in order.',
    description:
      'Store the id of the last event you processed and pass it as `after`; call again at once while `more` is true. Ids increase in the order events become visible, so a reader never skips one. Events are kept 30 days.',
  })
  @ApiOkResponse({ type: EventsPageDto })
  @ApiInvalidQueryResponse('`after` or `limit` is not a whole number in range.', {
    path: 'limit',
    message: 'limit must be a whole number from 1 to 200',
  })
  @Header('content-type', 'application/json; charset=utf-8')
  list(@Caller() caller: GatewayContext, @Query() query: EventsQueryDto): Promise<string> {
    return this.events.page(caller.account.id, query);
  }
}
