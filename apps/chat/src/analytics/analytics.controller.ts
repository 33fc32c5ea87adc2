import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AnalyticsQueryDto, AnalyticsResponse, GatewayContext } from '@svc/contracts';
import { Caller } from '@svc/platform';
import { InternalCallGuard } from '../settings/internal-call.guard';
import { AnalyticsService } from './analytics.service';

/** The analytics for the console and the MCP server (not routed by the gateway), the signed account's. */
@ApiExcludeController()
@Controller('internal/chat/analytics')
@UseGuards(InternalCallGuard)
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get()
  figures(@Caller() caller: GatewayContext, @Query() query: AnalyticsQueryDto): Promise<AnalyticsResponse> {
    return this.analytics.figures(caller.account.id, query);
  }
}
