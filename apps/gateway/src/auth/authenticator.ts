import { API_KEY_PATTERN, AccountsRepository, hashApiKey, sameHash } from '@svc/accounts';
import { Plan } from '@svc/contracts';
import { LRUCache } from 'lru-cache';

/** Who is calling: an active key and its account. */
export interface Principal {
  account: { id: string; name: string; plan: Plan };
  key: { id: string; prefix: string; created_at: string };
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
  private readonly cache: LRUCache<string, Lookup>;

  constructor(repository: AccountsRepository, ttlMs: number) {
    this.cache = new LRUCache<string, Lookup>({
      max: 50_000,
      ttl: Math.max(ttlMs, 1),
      fetchMethod: async (hashHex) => {
        const hash = Buffer.from(hashHex, 'hex');
        const row = await repository.findPrincipal(hash);
        if (!row || !sameHash(row.key_hash, hash)) return { principal: null };
        return {
          principal: {
            account: { id: row.account_id, name: row.account_name, plan: row.account_plan },
            key: { id: row.key_id, prefix: row.key_prefix, created_at: row.key_created_at },
          },
        };
      },
    });
  }

  async authenticate(apiKey: string): Promise<Principal | null> {
    if (!API_KEY_PATTERN.test(apiKey)) return null;
    const lookup = await this.cache.fetch(hashApiKey(apiKey).toString('hex'));
    return lookup?.principal ?? null;
  }
}
