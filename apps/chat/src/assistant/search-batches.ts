import { KnowledgeSearchResult } from '@svc/contracts';
import { KnowledgeQuery } from '@svc/internal-clients';

/**
 * Sends one account's questions to the search in one call (`requestId`: the first's); resolves to each question's results,
 * in order, or the error of a question refused alone (it fails that question only).
 */
export type SendSearches = (
  accountId: string,
  queries: KnowledgeQuery[],
  requestId: string,
) => Promise<Array<KnowledgeSearchResult[] | Error>>;

interface Waiting {
  accountId: string;
  query: KnowledgeQuery;
  requestId: string;
  resolve: (results: KnowledgeSearchResult[]) => void;
  reject: (err: unknown) => void;
}

/**
 * The assistant's searches of one process: at most `inFlight` calls at once. A question asked while
 * they are all out waits, in order, and goes with up to `batchMax` waiting questions of its account
 * in the next call. One customer alone is searched at once; many customers at once cost a call per
 * batch instead of one each. Results are handed back in the order the questions were asked (a small
 * later batch that returns first waits for the earlier ones), so the first asked is answered first.
 * A question refused alone fails alone: the others of its batch get their results.
 */
export class SearchBatches {
  private readonly waiting: Waiting[] = [];
  private calls = 0;
  /** Settles when every call started so far has handed back its results. */
  private handedBack: Promise<void> = Promise.resolve();

  constructor(
    private readonly send: SendSearches,
    private readonly inFlight: number,
    private readonly batchMax: number,
  ) {}

  search(accountId: string, query: KnowledgeQuery, requestId: string): Promise<KnowledgeSearchResult[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ accountId, query, requestId, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.calls < this.inFlight && this.waiting.length > 0) {
      const { accountId, requestId } = this.waiting[0] as Waiting;
      const batch: Waiting[] = [];
      for (let i = 0; i < this.waiting.length && batch.length < this.batchMax;) {
        if ((this.waiting[i] as Waiting).accountId === accountId) batch.push(...this.waiting.splice(i, 1));
        else i += 1;
      }
      this.calls += 1;
      const call = this.send(
        accountId,
        batch.map((waiting) => waiting.query),
        requestId,
      ).then(
        (results) => () =>
          batch.forEach((waiting, i) => {
            const outcome = results[i] ?? [];
            if (outcome instanceof Error) waiting.reject(outcome);
            else waiting.resolve(outcome);
          }),
        (err: unknown) => () => batch.forEach((waiting) => waiting.reject(err)),
      );
      this.handedBack = Promise.all([call, this.handedBack]).then(([handBack]) => handBack());
      void call.then(() => {
        this.calls -= 1;
        this.next();
      });
    }
  }
}
