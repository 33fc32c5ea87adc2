import { Query } from '@nestjs/common';
import { AnalyticsQueryDto, AnalyticsResponse, GatewayContext, INTERNAL_ROUTES } from '@svc/contracts';
import { Caller, Route } from '@svc/platform';
import { InternalChatController } from '../settings/internal-call.guard';
import { AnalyticsService } from './analytics.service';

/** The analytics for the console and the MCP server (not routed by the gateway), the signed account's. */
@InternalChatController('console', 'mcp-server')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Route(INTERNAL_ROUTES.chat.analytics)
  figures(@Caller() caller: GatewayContext, @Query() query: AnalyticsQueryDto): Promise<AnalyticsResponse> {
    return this.analytics.figures(caller.account.id, query);
  }
}
