import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  GatewayContext,
  KnowledgeSearchBatchResponse,
  KnowledgeSearchResponse,
  SearchKnowledgeBatchDto,
  SearchKnowledgeDto,
} from '@svc/contracts';
import { Caller, InternalCallers } from '@svc/platform';
import { SearchService } from './search.service';

/**
 * The assistant's search for the chat: `POST /internal/knowledge/search {question, lang, limit?}`, and
 * `POST /internal/knowledge/searches {searches: [...]}` for several questions of one account at once
 * (one call instead of one per question while many customers write).
 */
@ApiExcludeController()
@Controller('internal/knowledge')
@InternalCallers('chat')
export class SearchController {
  constructor(private readonly searchService: SearchService) {}

  @Post('search')
  @HttpCode(200)
  search(@Caller() caller: GatewayContext, @Body() body: SearchKnowledgeDto): KnowledgeSearchResponse {
    return this.searchService.answer(caller.account.id, body);
  }

  @Post('searches')
  @HttpCode(200)
  searches(@Caller() caller: GatewayContext, @Body() body: SearchKnowledgeBatchDto): KnowledgeSearchBatchResponse {
    return { results: body.searches.map((query) => this.searchService.answer(caller.account.id, query).results) };
  }
}
