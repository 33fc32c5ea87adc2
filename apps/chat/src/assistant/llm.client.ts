import { KnowledgeSearchResult } from '@svc/contracts';
import type { Logger } from 'pino';

export interface LlmOptions {
  /** `…/v1` of an OpenAI-compatible API. */
  baseUrl: string;
  model: string;
  apiKey: string;
  timeoutMs: number;
}

interface CompletionBody {
  choices?: Array<{ message?: { content?: unknown } }>;
}

/** The instructions: answer from the passages only, briefly, in the customer's language. */
const SYSTEM_PROMPT =
  'You answer customers of a business in its website chat. Answer only from the passages given, in at most three short sentences, ' +
  'in the language of the question. If the passages do not answer the question, say so. Never invent facts, prices or links.';

/**
 * The optional writer: an OpenAI-compatible chat-completions endpoint that writes the reply from
 * the top passages only. Any failure or an answer later than `timeoutMs` gives null: the caller
 * uses the extractive answer.
 */
export class LlmClient {
  constructor(
    private readonly options: LlmOptions,
    private readonly logger: Logger,
  ) {}

  async write(question: string, lang: string, passages: readonly KnowledgeSearchResult[]): Promise<string | null> {
    const context = passages.map((p, i) => `[${i + 1}] ${p.heading}\n${p.passage}`).join('\n\n');
    const started = Date.now();
    try {
      const response = await fetch(`${this.options.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify({
          model: this.options.model,
          temperature: 0.2,
          max_tokens: 300,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: `Customer language: ${lang}\n\nPassages:\n${context}\n\nQuestion: ${question}` },
          ],
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const body = (await response.json()) as CompletionBody;
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== 'string' || content.trim() === '') throw new Error('no answer in the response');
      return content.trim();
    } catch (err) {
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : (err as Error).message;
      this.logger.warn({ reason, duration_ms: Date.now() - started }, 'LLM reply failed; using the extractive answer');
      return null;
    }
  }
}
