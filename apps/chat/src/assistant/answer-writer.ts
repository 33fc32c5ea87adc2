import { KnowledgeClient } from '@svc/internal-clients';
import { accountContext } from '../conversations/customers.service';
import { textsFor } from '../texts/texts';
import { extractiveReply, goodMatch, Reply, searchQuestion, writtenReply } from './assistant-rules';
import { LlmClient } from './llm.client';

const SEARCH_RESULTS = 3;

/**
 * What the assistant answers a question: knowledge-api's best pieces in the customer's language;
 * the built-in extractive reply from the best good match, or, with a writer configured, the
 * writer's reply from the good matches' passages (the extractive one when it fails or is slow).
 */
export class AnswerWriter {
  constructor(
    private readonly knowledge: KnowledgeClient,
    private readonly llm: LlmClient | null,
  ) {}

  async reply(accountId: string, lang: string, question: string, requestId: string): Promise<Reply> {
    const words = textsFor(lang);
    const results = await this.knowledge.search(searchQuestion(question), lang, SEARCH_RESULTS, accountContext(accountId, requestId));
    const match = goodMatch(results);
    const extractive = extractiveReply(match, words);
    if (!match || !this.llm) return extractive;
    const written = await this.llm.write(question, lang, results.filter((result) => goodMatch([result])));
    return written === null ? extractive : writtenReply(written, extractive, words);
  }
}
