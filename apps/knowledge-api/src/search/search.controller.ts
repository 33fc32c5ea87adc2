import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContext, KnowledgeSearchResponse, SearchKnowledgeDto } from '@svc/contracts';
import { Caller } from '@svc/platform';
import { SearchService } from './search.service';

/** The assistant's search for the chat: `POST /internal/knowledge/search {question, lang, limit?}`. */
@ApiExcludeController()
@Controller('internal/knowledge')
export class SearchController {
  constructor(private readonly searchService: SearchService) {}

  @Post('search')
  @HttpCode(200)
  search(@Caller() caller: GatewayContext, @Body() body: SearchKnowledgeDto): KnowledgeSearchResponse {
    return this.searchService.answer(caller.account.id, body);
  }
}
