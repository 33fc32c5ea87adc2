import { KNOWLEDGE_SEARCH_LIMITS, KnowledgeSearchResult, SearchKnowledgeDto } from '@svc/contracts';
import { ApiError, validationProblems } from '@svc/platform';
import { Inject, Injectable } from '@nestjs/common';
import { KnowledgeClient, KnowledgeQuery } from '@svc/internal-clients';
import { accountContext } from '../conversations/customers.service';
import { textLanguage, textsFor } from '../texts/texts';
import { extractiveReply, goodMatch, Reply, searchQuestion, writtenReply } from './assistant-rules';
import { LlmClient } from './llm.client';
import { LLM_CLIENT } from '../chat.tokens';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { SearchBatches } from './search-batches';

const SEARCH_RESULTS = 3;

/**
 * What the assistant answers a question: knowledge-api's best pieces in the customer's language;
 * the built-in extractive reply from the best good match, or, with a writer configured, the
 * writer's reply from the good matches' passages (the extractive one when it fails or is slow).
 *
 * At most `ASSISTANT_SEARCH_CONCURRENCY` search calls of this process are in flight; questions
 * asked meanwhile wait in order and go together, per account, in the next call (`SearchBatches`).
 * When many customers write at once, the first questions are answered first instead of all of them
 * sharing the CPU and finishing together at the end, and knowledge-api gets a call per batch.
 */
@Injectable()
export class AnswerWriter {
  private readonly searches: SearchBatches;

  constructor(
    knowledge: KnowledgeClient,
    @Inject(LLM_CLIENT) private readonly llm: LlmClient | null,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'ASSISTANT_SEARCH_CONCURRENCY'>,
  ) {
    this.searches = new SearchBatches(
      (accountId, queries, requestId) => knowledge.search(queries, accountContext(accountId, requestId)),
      config.ASSISTANT_SEARCH_CONCURRENCY,
      KNOWLEDGE_SEARCH_LIMITS.batchMax,
    );
  }

  /**
   * The account's best pieces for the question, in the customer's language. A question the search would refuse
   * (SearchKnowledgeDto) is refused here, alone, and never joins a batch of other questions.
   */
  search(accountId: string, lang: string, question: string, requestId: string): Promise<KnowledgeSearchResult[]> {
    const query: KnowledgeQuery = { question: searchQuestion(question), lang: textLanguage(lang), limit: SEARCH_RESULTS };
    const problems = validationProblems(SearchKnowledgeDto, query);
    if (problems.length > 0)
      return Promise.reject(new ApiError('validation_failed', `The question cannot be searched: ${problems.join('; ')}`));
    return this.searches.search(accountId, query, requestId);
  }

  /** The reply to a question; `found`: its search, when already started (see ReplyQueue.searchEarly). */
  async reply(
    accountId: string,
    lang: string,
    question: string,
    requestId: string,
    found: Promise<KnowledgeSearchResult[]> = this.search(accountId, lang, question, requestId),
  ): Promise<Reply> {
    const words = textsFor(lang);
    const results = await found;
    const match = goodMatch(results);
    const extractive = extractiveReply(match, words);
    if (!match || !this.llm) return extractive;
    const written = await this.llm.write(
      question,
      lang,
      results.filter((result) => goodMatch([result])),
    );
    return written === null ? extractive : writtenReply(written, extractive, words);
  }
}
