import { GatewayContext, KnowledgeSearchBatchResponse, KnowledgeSearchResult } from '@svc/contracts';
import { InternalClientOptions, InternalHttpClient } from './internal-http';

/** A question to knowledge-api's search, in the visitor's language, for at most `limit` pieces. */
export interface KnowledgeQuery {
  question: string;
  lang: string;
  limit: number;
}

/** The assistant's search (`POST /internal/knowledge/searches` on knowledge-api). */
export class KnowledgeClient {
  private readonly http: InternalHttpClient;

  constructor(options: Omit<InternalClientOptions, 'upstream'>) {
    this.http = new InternalHttpClient({ ...options, upstream: 'knowledge-api' });
  }

  /** The account's best pieces for each question (at most KNOWLEDGE_SEARCH_LIMITS.batchMax), best first, in the questions' order. */
  async search(queries: readonly KnowledgeQuery[], context: GatewayContext): Promise<KnowledgeSearchResult[][]> {
    const response = await this.http.call('POST', '/internal/knowledge/searches', context, { searches: queries });
    const body = response.body as Partial<KnowledgeSearchBatchResponse> | undefined;
    if (response.status !== 200 || !Array.isArray(body?.results) || body.results.length !== queries.length)
      throw this.http.unavailable(context, `status ${response.status}`);
    return body.results;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
