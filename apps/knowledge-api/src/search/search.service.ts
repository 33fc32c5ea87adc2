import { Injectable } from '@nestjs/common';
import { KNOWLEDGE_SEARCH_LIMITS, KnowledgeSearchResponse, SearchKnowledgeDto } from '@svc/contracts';
import { languageOfTag } from '@svc/search';
import { SearchIndex } from './search-index';

@Injectable()
export class SearchService {
  constructor(private readonly index: SearchIndex) {}

  /** The trusted pieces for a visitor's question, best first, with their passages. */
  answer(accountId: string, query: SearchKnowledgeDto): KnowledgeSearchResponse {
    const limit = query.limit ?? KNOWLEDGE_SEARCH_LIMITS.resultsDefault;
    return { results: this.index.search(accountId, query.question, languageOfTag(query.lang), limit) };
  }
}
