import { GatewayContext, KnowledgeSearchResponse, KnowledgeSearchResult } from '@svc/contracts';
import { InternalClientOptions, InternalHttpClient } from './internal-http';

/** The assistant's search (`POST /internal/knowledge/search` on knowledge-api). */
export class KnowledgeClient {
  private readonly http: InternalHttpClient;

  constructor(options: Omit<InternalClientOptions, 'upstream'>) {
    this.http = new InternalHttpClient({ ...options, upstream: 'knowledge-api' });
  }

  /** The account's best pieces for the question, best first. */
  async search(question: string, lang: string, limit: number, context: GatewayContext): Promise<KnowledgeSearchResult[]> {
    const response = await this.http.call('POST', '/internal/knowledge/search', context, { question, lang, limit });
    const body = response.body as Partial<KnowledgeSearchResponse> | undefined;
    if (response.status !== 200 || !Array.isArray(body?.results)) throw this.http.unavailable(context, `status ${response.status}`);
    return body.results;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
