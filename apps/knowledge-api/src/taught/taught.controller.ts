import { Body, Controller, Param, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  GatewayContext,
  INTERNAL_ROUTES,
  ListTaughtQueryDto,
  TaughtIdParams,
  TaughtItem,
  TaughtPage,
  TeachAssistantDto,
} from '@svc/contracts';
import { Caller, InternalCallers, NoContent, Route } from '@svc/platform';
import { TaughtService } from './taught.service';

const { knowledge: KNOWLEDGE } = INTERNAL_ROUTES;

/**
 * What the team taught the assistant, for the console (Teach in a conversation, the Knowledge page)
 * and MCP (`teach_assistant`): teach (201; the same question again replaces it), list, remove.
 */
@ApiExcludeController()
@Controller()
@InternalCallers('console', 'mcp-server')
export class TaughtController {
  constructor(private readonly taught: TaughtService) {}

  @Route(KNOWLEDGE.teach)
  teach(@Caller() caller: GatewayContext, @Body() body: TeachAssistantDto): Promise<TaughtItem> {
    return this.taught.teach(caller, body);
  }

  @Route(KNOWLEDGE.taught)
  list(@Caller() caller: GatewayContext, @Query() query: ListTaughtQueryDto): Promise<TaughtPage> {
    return this.taught.list(caller.account.id, query);
  }

  @Route(KNOWLEDGE.untaught)
  @NoContent('Forgotten.')
  async remove(@Caller() caller: GatewayContext, @Param() { id }: TaughtIdParams): Promise<void> {
    await this.taught.remove(caller.account.id, id);
  }
}
