import { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { KnowledgeSearchResult, SearchShard, searchShardOf, WHOLE_INDEX } from '@svc/contracts';
import { PgNotifications } from '@svc/jobs';
import { AccountIndex, detectLanguage, languageOfTag, SearchLanguage, TaughtQuestion } from '@svc/search';
import type { Logger } from 'pino';
import { PIECES_CHANGED_CHANNEL } from '../migrations/1763900000001-SearchInMemory';
import { TAUGHT_CHANGED_CHANNEL } from '../migrations/1764800000000-TaughtQuestions';
import { PieceRow, SearchRepository, TaughtRow } from './search.repository';

/** Pieces read per statement when the index is built. */
const LOAD_PAGE = 2_000;
/** Wait before a lost listener connects again, or a failed re-read is retried by a full reload. */
const RETRY_MS = 2_000;

/** A notification of `knowledge_pieces_changed`: the account and the ids of the pieces a statement changed. */
interface PiecesChanged {
  a: string;
  i: Array<number | string>;
}

/** A notification of `knowledge_taught_changed`: the account whose taught questions changed. */
interface TaughtChanged {
  a: string;
}

const taughtQuestion = (row: TaughtRow): TaughtQuestion => ({
  id: row.id,
  question: row.question,
  lang: languageOfTag(row.lang),
  external_ref: row.external_ref,
});
/**
 * A piece as the index holds it. One stored as `simple` (no language told) is told again from its words: a short
 * piece written before its language could be told by its frequent words (ADR 016) is stemmed without being written again.
 */
const indexedPiece = (row: PieceRow): PieceRow =>
  row.lang === 'simple' ? { ...row, lang: detectLanguage(`${row.heading}\n${row.text}`) } : row;
const sameTeaching = (a: TaughtQuestion, b: TaughtQuestion) =>
  a.question === b.question && a.lang === b.lang && a.external_ref === b.external_ref;

/** Every account's index in this replica, fresh through NOTIFY. See docs/adr/009-knowledge-search-in-memory.md */
export class SearchIndex implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private accounts = new Map<string, AccountIndex>();
  /** What each account's index was taught, by id (an account with taught questions keeps its index without pieces). */
  private taught = new Map<string, Map<string, TaughtQuestion>>();
  private readonly notifications: PgNotifications;
  private stopped = false;
  private queue: Promise<void> = Promise.resolve();
  private reloadTimer?: NodeJS.Timeout;

  constructor(
    private readonly pieces: SearchRepository,
    databaseUrl: string,
    private readonly logger: Logger,
    /** The accounts this replica holds: those of this search shard (docs/adr/018-search-shards.md). */
    readonly shard: SearchShard = WHOLE_INDEX,
  ) {
    this.notifications = new PgNotifications(
      {
        databaseUrl,
        channel: [PIECES_CHANGED_CHANNEL, TAUGHT_CHANGED_CHANNEL],
        applicationName: 'knowledge-search-index',
        reconnectDelayMs: RETRY_MS,
        lostLine: 'search index lost its LISTEN connection; connecting again',
        failedLine: 'search index could not LISTEN; trying again',
      },
      logger,
    );
    this.notifications.onNotification((message) =>
      message.channel === TAUGHT_CHANGED_CHANNEL ? this.onTaughtChange(message.payload) : this.onChange(message.payload),
    );
    // Connected again: notifications sent meanwhile were missed, so the index is rebuilt.
    this.notifications.onConnect((reconnected) => {
      if (reconnected && !this.stopped) void this.enqueue(() => this.load());
    });
  }

  /** LISTENs first, then loads: a change committed during the load is re-read after it. */
  async onApplicationBootstrap(): Promise<void> {
    await this.notifications.open();
    await this.enqueue(() => this.load());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reloadTimer);
    await this.notifications.close();
    await this.queue;
  }

  /** Whether changes reach this replica now (its LISTEN connection is up). */
  get listening(): boolean {
    return this.notifications.listening;
  }

  /** Whether the account is on this replica's search shard (with one shard, every account is). */
  holds(accountId: string): boolean {
    return this.shard.count === 1 || searchShardOf(accountId, this.shard.count) === this.shard.index;
  }

  /** The account's trusted pieces for a question, best first (an account of another shard: none; ask `holds` first). */
  search(accountId: string, question: string, visitor: SearchLanguage, limit: number): KnowledgeSearchResult[] {
    return this.accounts.get(accountId)?.search(question, visitor, limit) ?? [];
  }

  /**
   * Re-reads the account's pieces with these external_refs: called by the replica that has just committed
   * them. An account of another shard is left to that shard's replicas, which its NOTIFY reaches.
   */
  refresh(accountId: string, refs: string[]): Promise<void> {
    if (!this.holds(accountId)) return Promise.resolve();
    return this.enqueue(async () => {
      const rows = await this.pieces.byRefs(accountId, refs);
      this.apply(rows);
      const found = new Set(rows.map((row) => row.external_ref));
      for (const ref of refs) if (!found.has(ref)) this.accounts.get(accountId)?.remove(ref);
      this.dropIfEmpty(accountId);
    });
  }

  /** Re-reads what the account taught (every one: at most TAUGHT_LIMITS.perAccount): called on its NOTIFY and by the replica that wrote. */
  refreshTaught(accountId: string): Promise<void> {
    if (!this.holds(accountId)) return Promise.resolve();
    return this.enqueue(async () => {
      const now = new Map((await this.pieces.taughtOf(accountId)).map((row) => [row.id, taughtQuestion(row)]));
      const held = this.taught.get(accountId) ?? new Map<string, TaughtQuestion>();
      const index = this.accountIn(this.accounts, accountId);
      for (const id of held.keys()) if (!now.has(id)) index.unteach(id);
      for (const [id, question] of now) {
        const before = held.get(id);
        if (!before || !sameTeaching(before, question)) index.teach(question);
      }
      if (now.size > 0) this.taught.set(accountId, now);
      else this.taught.delete(accountId);
      this.dropIfEmpty(accountId);
    });
  }

  /** Runs `work` after the loads and re-reads before it; a failed one schedules a full reload. Never rejects. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(work).catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, 'search index could not read pieces; reloading it soon');
      this.reloadSoon();
    });
    return this.queue;
  }

  private reloadSoon(): void {
    if (this.stopped || this.reloadTimer) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      void this.enqueue(() => this.load());
    }, RETRY_MS);
    this.reloadTimer.unref();
  }

  /**
   * Builds the index of every account of this shard from the tables (what was taught first: a piece is
   * indexed with it), then swaps it in.
   */
  private async load(): Promise<void> {
    const started = Date.now();
    const accounts = new Map<string, AccountIndex>();
    const taught = new Map<string, Map<string, TaughtQuestion>>();
    const held = this.shard.count === 1 ? undefined : (await this.pieces.accounts()).filter((id) => this.holds(id));
    let after = '0';
    for (;;) {
      const rows = await this.pieces.taughtPage(after, LOAD_PAGE, held);
      for (const row of rows) {
        const question = taughtQuestion(row);
        this.accountIn(accounts, row.account_id).teach(question);
        let questions = taught.get(row.account_id);
        if (!questions) taught.set(row.account_id, (questions = new Map()));
        questions.set(row.id, question);
      }
      if (rows.length < LOAD_PAGE) break;
      after = (rows[rows.length - 1] as TaughtRow).id;
    }
    after = '0';
    let count = 0;
    for (;;) {
      const rows = await this.pieces.page(after, LOAD_PAGE, held);
      for (const row of rows) this.accountIn(accounts, row.account_id).upsert(indexedPiece(row));
      count += rows.length;
      if (rows.length < LOAD_PAGE) break;
      after = (rows[rows.length - 1] as PieceRow).id;
    }
    this.accounts = accounts;
    this.taught = taught;
    const shard = `${this.shard.index}/${this.shard.count}`;
    this.logger.info(
      { pieces: count, taught: taught.size, accounts: accounts.size, shard, ms: Date.now() - started },
      'search index built',
    );
  }

  private apply(rows: PieceRow[]): void {
    for (const row of rows) this.accountIn(this.accounts, row.account_id).upsert(indexedPiece(row));
  }

  private dropIfEmpty(accountId: string): void {
    if (this.accounts.get(accountId)?.size === 0 && !this.taught.has(accountId)) this.accounts.delete(accountId);
  }

  private accountIn(accounts: Map<string, AccountIndex>, accountId: string): AccountIndex {
    let index = accounts.get(accountId);
    if (!index) accounts.set(accountId, (index = new AccountIndex()));
    return index;
  }

  private onTaughtChange(payload: string | undefined): void {
    let change: TaughtChanged;
    try {
      change = JSON.parse(payload ?? '') as TaughtChanged;
    } catch {
      this.logger.warn('search index got an unreadable taught notification; reloading it');
      this.reloadSoon();
      return;
    }
    void this.refreshTaught(change.a);
  }

  private onChange(payload: string | undefined): void {
    let change: PiecesChanged;
    try {
      change = JSON.parse(payload ?? '') as PiecesChanged;
    } catch {
      this.logger.warn('search index got an unreadable change notification; reloading it');
      this.reloadSoon();
      return;
    }
    if (!this.holds(change.a)) return;
    const ids = change.i.map(String);
    void this.enqueue(async () => {
      const rows = await this.pieces.byIds(ids);
      this.apply(rows);
      const found = new Set(rows.map((row) => row.id));
      for (const id of ids) if (!found.has(id)) this.accounts.get(change.a)?.removeId(id);
      this.dropIfEmpty(change.a);
    });
  }
}
