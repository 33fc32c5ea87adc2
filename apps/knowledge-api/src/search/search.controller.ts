import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  ErrorBody,
  GatewayContext,
  KnowledgeSearchBatchResponse,
  KnowledgeSearchResponse,
  KnowledgeSearchResult,
  SearchKnowledgeBatchDto,
  SearchKnowledgeDto,
} from '@svc/contracts';
import { ApiError, ApiValidationPipe, Caller, InternalCallers } from '@svc/platform';
import { SearchService } from './search.service';

/** The rules of a request's body, applied to each search of a batch on its own. */
const ONE_SEARCH = new ApiValidationPipe();

/** A search of a batch as a SearchKnowledgeDto, or its refusal with the paths under `searches[i]`. */
async function searchAt(entry: unknown, index: number): Promise<SearchKnowledgeDto | ErrorBody> {
  try {
    return (await ONE_SEARCH.transform(entry, { type: 'body', metatype: SearchKnowledgeDto })) as SearchKnowledgeDto;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const at = `searches[${index}]`;
    const details = err.details?.map((detail) => ({ path: detail.path === 'body' ? at : `${at}.${detail.path}`, message: detail.message }));
    return { error: { code: err.code, message: err.message, ...(details ? { details } : {}) } };
  }
}

/**
 * The assistant's search for the chat: `POST /internal/knowledge/search {question, lang, limit?}`, and
 * `POST /internal/knowledge/searches {searches: [...]}` for several questions of one account at once
 * (one call instead of one per question while many customers write). A search of a batch is checked
 * alone: a bad one gets its error in its place and never fails the others.
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
  async searches(@Caller() caller: GatewayContext, @Body() body: SearchKnowledgeBatchDto): Promise<KnowledgeSearchBatchResponse> {
    const queries = await Promise.all(body.searches.map(searchAt));
    const results = queries.map((query): KnowledgeSearchResult[] | ErrorBody =>
      query instanceof SearchKnowledgeDto ? this.searchService.answer(caller.account.id, query).results : query,
    );
    return { results };
  }
}
