import { Injectable } from '@nestjs/common';
import { KNOWLEDGE_SEARCH_LIMITS, KnowledgeSearchResponse, SearchKnowledgeDto } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { languageOfTag } from '@svc/search';
import { SearchIndex } from './search-index';

@Injectable()
export class SearchService {
  constructor(private readonly index: SearchIndex) {}

  /**
   * The trusted pieces for a visitor's question, best first, with their passages. An account of another
   * search shard is refused (unavailable), never answered from an index that does not hold it: a caller
   * that routes to the wrong shard fails loudly instead of finding nothing.
   */
  answer(accountId: string, query: SearchKnowledgeDto): KnowledgeSearchResponse {
    if (!this.index.holds(accountId)) {
      const { index, count } = this.index.shard;
      throw new ApiError('unavailable', `This replica holds search shard ${index}/${count}, not the account's.`);
    }
    const limit = query.limit ?? KNOWLEDGE_SEARCH_LIMITS.resultsDefault;
    return { results: this.index.search(accountId, query.question, languageOfTag(query.lang), limit) };
  }
}
