import { APP_CONFIG } from '@svc/platform';
import { Inject, Injectable } from '@nestjs/common';
import { KnowledgeClient } from '@svc/internal-clients';
import pLimit from 'p-limit';
import { accountContext } from '../conversations/customers.service';
import { textsFor } from '../texts/texts';
import { extractiveReply, goodMatch, Reply, searchQuestion, writtenReply } from './assistant-rules';
import { LlmClient } from './llm.client';
import { LLM_CLIENT } from '../chat.tokens';
import { ChatConfig } from '../chat.config';

const SEARCH_RESULTS = 3;

/**
 * What the assistant answers a question: knowledge-api's best pieces in the customer's language;
 * the built-in extractive reply from the best good match, or, with a writer configured, the
 * writer's reply from the good matches' passages (the extractive one when it fails or is slow).
 *
 * At most `searchConcurrency` searches of this process are in flight; the others wait in order.
 * When many customers write at once, the first questions are answered first instead of all of
 * them sharing the CPU and finishing together at the end (and knowledge-api is not flooded).
 */
@Injectable()
export class AnswerWriter {
  private readonly searches: pLimit.Limit;

  constructor(
    private readonly knowledge: KnowledgeClient,
    @Inject(LLM_CLIENT) private readonly llm: LlmClient | null,
    @Inject(APP_CONFIG) config: Pick<ChatConfig, 'ASSISTANT_SEARCH_CONCURRENCY'>,
  ) {
    this.searches = pLimit(config.ASSISTANT_SEARCH_CONCURRENCY);
  }

  async reply(accountId: string, lang: string, question: string, requestId: string): Promise<Reply> {
    const words = textsFor(lang);
    const results = await this.searches(() =>
      this.knowledge.search(searchQuestion(question), lang, SEARCH_RESULTS, accountContext(accountId, requestId)),
    );
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
