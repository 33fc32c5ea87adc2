import { Injectable } from '@nestjs/common';
import { KNOWLEDGE_SEARCH_LIMITS, KnowledgeSearchResponse, SearchKnowledgeDto } from '@svc/contracts';
import { languageOfTag } from './language';
import { SearchRepository } from './search.repository';

@Injectable()
export class SearchService {
  constructor(private readonly search: SearchRepository) {}

  /** The account's pieces that best answer a visitor's question, best first, with the matching passage. */
  async answer(accountId: string, query: SearchKnowledgeDto): Promise<KnowledgeSearchResponse> {
    const limit = query.limit ?? KNOWLEDGE_SEARCH_LIMITS.resultsDefault;
    return { results: await this.search.search(accountId, query.question, languageOfTag(query.lang), limit) };
  }
}
