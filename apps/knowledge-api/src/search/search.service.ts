import { Injectable } from '@nestjs/common';
import { KNOWLEDGE_SEARCH_LIMITS, KnowledgeSearchResponse, SearchKnowledgeDto } from '@svc/contracts';
import { languageOfTag } from './language';
import { QuestionTerm, SearchRepository } from './search.repository';

/**
 * How many pieces, at most, the rarest question words may select for ranking. Words found in most
 * pieces ("shipping" in a shop) still count in the ranking, but selecting every piece that holds
 * them would make one search read the whole account.
 */
export const CANDIDATE_BUDGET = 500;

/**
 * The rarest known words whose pieces add up to at most the budget. A word no piece holds as such
 * is left out: its stem may still be everywhere ("cost" when pieces say "costs"); its correction,
 * if any, is a known word and takes part.
 */
export function rareWords(terms: QuestionTerm[], budget = CANDIDATE_BUDGET): string[] {
  let running = 0;
  return terms
    .filter((term) => term.pieces > 0)
    .sort((a, b) => a.pieces - b.pieces || (a.word < b.word ? -1 : 1))
    .filter((term) => (running += term.pieces) <= budget)
    .map((term) => term.word);
}

@Injectable()
export class SearchService {
  constructor(private readonly search: SearchRepository) {}

  /** The account's pieces that best answer a visitor's question, best first, with the matching passage. */
  async answer(accountId: string, query: SearchKnowledgeDto): Promise<KnowledgeSearchResponse> {
    const terms = await this.search.terms(accountId, query.question, languageOfTag(query.lang));
    if (terms.length === 0) return { results: [] };
    const limit = query.limit ?? KNOWLEDGE_SEARCH_LIMITS.resultsDefault;
    return {
      results: await this.search.rank(
        accountId,
        terms.map((t) => t.word),
        rareWords(terms),
        limit,
      ),
    };
  }
}
