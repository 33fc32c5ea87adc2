import { GatewayContext, isErrorCode, KnowledgeSearchBatchResponse, KnowledgeSearchResult } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { InternalClientOptions, InternalHttpClient } from './internal-http';

/** A question to knowledge-api's search, in the visitor's language, for at most `limit` pieces. */
export interface KnowledgeQuery {
  question: string;
  lang: string;
  limit: number;
}

/** One question's answer in a batch: its results, or why knowledge-api refused that question alone. */
export type KnowledgeSearchOutcome = KnowledgeSearchResult[] | ApiError;

/** The assistant's search (`POST /internal/knowledge/searches` on knowledge-api). */
export class KnowledgeClient {
  private readonly http: InternalHttpClient;

  constructor(options: Omit<InternalClientOptions, 'upstream'>) {
    this.http = new InternalHttpClient({ ...options, upstream: 'knowledge-api' });
  }

  /**
   * Each question's best pieces (at most KNOWLEDGE_SEARCH_LIMITS.batchMax questions), best first, in the questions' order;
   * a question refused alone gets its ApiError in its place. A call that fails as a whole throws.
   */
  async search(queries: readonly KnowledgeQuery[], context: GatewayContext): Promise<KnowledgeSearchOutcome[]> {
    const response = await this.http.call('POST', '/internal/knowledge/searches', context, { searches: queries });
    const body = response.body as Partial<KnowledgeSearchBatchResponse> | undefined;
    if (response.status !== 200 || !Array.isArray(body?.results) || body.results.length !== queries.length)
      throw this.http.unavailable(context, `status ${response.status}`);
    return body.results.map((outcome) => {
      if (Array.isArray(outcome)) return outcome;
      const error = (outcome as Partial<typeof outcome> | null)?.error;
      if (isErrorCode(error?.code) && typeof error.message === 'string') return new ApiError(error.code, error.message, error.details);
      return this.http.unavailable(context, 'unexpected search outcome');
    });
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
