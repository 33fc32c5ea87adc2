import { API_KEY_PATTERN, AccountsRepository, hashApiKey, sameHash } from '@svc/accounts';
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

interface Lookup {
  principal: Principal | null;
}

/**
 * Resolves a bearer key to its principal. Lookups (hits and misses) are cached per process for at
 * most AUTH_CACHE_TTL_MS (≤ 5 s), so a revocation or plan change is seen within that time by every
 * gateway; concurrent lookups of one key share one query.
 */
export class ApiKeyAuthenticator {
  /** Keyed by a digest of the key, never the key itself; the key is the lookup's fetch context. */
  private readonly cache: LRUCache<string, Lookup, string>;

  constructor(repository: AccountsRepository, ttlMs: number) {
    this.cache = new LRUCache<string, Lookup, string>({
      max: 50_000,
      ttl: Math.max(ttlMs, 1),
      fetchMethod: async (_digest, _stale, { context: apiKey }) => {
        const keyHash = hashApiKey(apiKey);
        const row = await repository.findPrincipal(keyHash);
        if (!row || !sameHash(row.key_hash, keyHash)) return { principal: null };
        return {
          principal: {
            account: { id: row.account_id, name: row.account_name, plan: row.account_plan },
            key: { id: row.key_id, prefix: row.key_prefix, created_at: row.key_created_at },
            widget: row.account_widget,
          },
        };
      },
    });
  }

  /**
   * The principal, or null for a key that is malformed, unknown or revoked. A cached lookup is
   * answered synchronously (no promise on the hot path); only a miss returns a promise.
   */
  authenticate(apiKey: string): Principal | null | Promise<Principal | null> {
    if (!API_KEY_PATTERN.test(apiKey)) return null;
    // One-shot crypto.hash: a tenth of the cost of a Hash object per call.
    const digest = hash('sha256', apiKey, 'base64');
    const cached = this.cache.get(digest);
    if (cached) return cached.principal;
    return this.cache.fetch(digest, { context: apiKey }).then((lookup) => lookup?.principal ?? null);
  }
}
