import { GatewayContext, isErrorCode, KnowledgeSearchBatchResponse, KnowledgeSearchResult, searchShardOf } from '@svc/contracts';
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

/** Where knowledge-api's search is: its URL, or with search shards one URL per shard, in shard order. */
export type KnowledgeClientOptions = Omit<InternalClientOptions, 'upstream'> & { shardUrls?: readonly string[] };

/**
 * The assistant's search (`POST /internal/knowledge/searches` on knowledge-api), sent to the replicas
 * that hold the account: with search shards, those of its shard (docs/adr/018-search-shards.md).
 */
export class KnowledgeClient {
  /** One client per search shard, in shard order (one: every replica holds every account). */
  private readonly shards: InternalHttpClient[];

  constructor({ shardUrls, ...options }: KnowledgeClientOptions) {
    const urls = shardUrls?.length ? shardUrls : [options.url];
    this.shards = urls.map((url) => new InternalHttpClient({ ...options, url, upstream: 'knowledge-api' }));
  }

  private httpFor(accountId: string): InternalHttpClient {
    return this.shards[searchShardOf(accountId, this.shards.length)] as InternalHttpClient;
  }

  /**
   * Each question's best pieces (at most KNOWLEDGE_SEARCH_LIMITS.batchMax questions), best first, in the questions' order;
   * a question refused alone gets its ApiError in its place. A call that fails as a whole throws.
   */
  async search(queries: readonly KnowledgeQuery[], context: GatewayContext): Promise<KnowledgeSearchOutcome[]> {
    const http = this.httpFor(context.account.id);
    const response = await http.call('POST', '/internal/knowledge/searches', context, { searches: queries });
    const body = response.body as Partial<KnowledgeSearchBatchResponse> | undefined;
    if (response.status !== 200 || !Array.isArray(body?.results) || body.results.length !== queries.length)
      throw http.unavailable(context, `status ${response.status}`);
    return body.results.map((outcome) => {
      if (Array.isArray(outcome)) return outcome;
      const error = (outcome as Partial<typeof outcome> | null)?.error;
      if (isErrorCode(error?.code) && typeof error.message === 'string') return new ApiError(error.code, error.message, error.details);
      return http.unavailable(context, 'unexpected search outcome');
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((http) => http.close()));
  }
}
