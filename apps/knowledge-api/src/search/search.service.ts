import { Injectable } from '@nestjs/common';
import { KNOWLEDGE_SEARCH_LIMITS, KnowledgeSearchResponse, SearchKnowledgeDto } from '@svc/contracts';
import { languageOfTag } from './language';
import { SearchIndex } from './search-index';

@Injectable()
export class SearchService {
  constructor(private readonly index: SearchIndex) {}

  /**
   * The account's pieces that answer a visitor's question, best first, with the matching passage;
   * none when no piece matches enough of the question to be trusted.
   */
  answer(accountId: string, query: SearchKnowledgeDto): KnowledgeSearchResponse {
    const limit = query.limit ?? KNOWLEDGE_SEARCH_LIMITS.resultsDefault;
    return { results: this.index.search(accountId, query.question, languageOfTag(query.lang), limit) };
  }
}
