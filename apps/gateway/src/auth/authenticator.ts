import { API_KEY_PATTERN, AccountsRepository, hashApiKey, PrincipalRow, sameHash } from '@svc/accounts';
import { Plan } from '@svc/contracts';
import { LRUCache } from 'lru-cache';
import { hash } from 'node:crypto';

/** Who is calling: an active key and its account. */
export interface Principal {
  account: { id: string; name: string; plan: Plan };
  key: { id: string; prefix: string; created_at: string };
  /** The account's public widget id. */
  widget: string;
}

export interface KeyCacheSizes {
  /** Keys found (active keys and their accounts). */
  known: number;
  /** Keys not found: unknown, revoked. Apart, so that guessed keys cannot push real ones out. */
  unknown: number;
}

const DEFAULT_SIZES: KeyCacheSizes = { known: 50_000, unknown: 10_000 };

/**
 * Resolves a bearer key to its principal. Every answer of the database, found or not, is cached
 * per process for at most AUTH_CACHE_TTL_MS (≤ 5 s), so a revocation or plan change is seen within
 * that time by every gateway and a key costs at most one query per process in that time;
 * concurrent lookups of one key share one query. Found and not-found keys are cached in two
 * bounded structures, so any number of guessed keys cannot push the real keys out of theirs.
 */
export class ApiKeyAuthenticator {
  /** Keyed by a digest of the key, never the key itself. */
  private readonly known: LRUCache<string, Principal>;
  private readonly unknown: LRUCache<string, true>;
  private readonly inFlight = new Map<string, Promise<Principal | null>>();

  constructor(
    private readonly repository: AccountsRepository,
    ttlMs: number,
    sizes: KeyCacheSizes = DEFAULT_SIZES,
  ) {
    const ttl = Math.max(ttlMs, 1);
    this.known = new LRUCache<string, Principal>({ max: sizes.known, ttl });
    this.unknown = new LRUCache<string, true>({ max: sizes.unknown, ttl });
  }

  /** True for a token shaped like a key: only those are looked up (and count as failures). */
  isWellFormed(apiKey: string): boolean {
    return API_KEY_PATTERN.test(apiKey);
  }

  /** The principal of a key found in the last AUTH_CACHE_TTL_MS, synchronously (no promise on the hot path). */
  cached(apiKey: string): Principal | undefined {
    if (!API_KEY_PATTERN.test(apiKey)) return undefined;
    return this.known.get(digestOf(apiKey));
  }

  /** The principal, or null for a key that is malformed, unknown or revoked. */
  lookup(apiKey: string): Promise<Principal | null> {
    if (!API_KEY_PATTERN.test(apiKey)) return Promise.resolve(null);
    const digest = digestOf(apiKey);
    const found = this.known.get(digest);
    if (found) return Promise.resolve(found);
    if (this.unknown.has(digest)) return Promise.resolve(null);
    let pending = this.inFlight.get(digest);
    if (!pending) {
      pending = this.lookUp(apiKey, digest).finally(() => this.inFlight.delete(digest));
      this.inFlight.set(digest, pending);
    }
    return pending;
  }

  private async lookUp(apiKey: string, digest: string): Promise<Principal | null> {
    const keyHash = hashApiKey(apiKey);
    const row = await this.repository.findPrincipal(keyHash);
    if (!row || !sameHash(row.key_hash, keyHash)) {
      this.unknown.set(digest, true);
      return null;
    }
    const principal = principalOf(row);
    this.known.set(digest, principal);
    return principal;
  }
}

/** The principal of a key's row (with its account). */
export function principalOf(row: PrincipalRow): Principal {
  return {
    account: { id: row.account_id, name: row.account_name, plan: row.account_plan },
    key: { id: row.key_id, prefix: row.key_prefix, created_at: row.key_created_at },
    widget: row.account_widget,
  };
}

/** One-shot crypto.hash: a tenth of the cost of a Hash object per call. */
function digestOf(apiKey: string): string {
  return hash('sha256', apiKey, 'base64');
}
