import { API_KEY_PREFIX, AccountsRepository, hashApiKey, isWellFormedApiKey, PrincipalRow, sameHash } from '@svc/accounts';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { Plan } from '@svc/contracts';
import { LRUCache } from 'lru-cache';
import { hash } from 'node:crypto';
import type { GatewayConfig } from '../gateway.config';
import { GATEWAY_CONFIG } from '../gateway.config';

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
  /** How long a key not found stays known as such: it never becomes valid (keys are random, made by the service, revocation is final). */
  unknownTtlMs: number;
}

const DEFAULT_SIZES: KeyCacheSizes = { known: 50_000, unknown: 10_000, unknownTtlMs: 10 * 60_000 };

/**
 * Resolves a bearer key to its principal. A token that cannot be a key (wrong shape, or a
 * checksum that does not match) is refused without a lookup. A key found is cached per process
 * for at most AUTH_CACHE_TTL_MS (≤ 5 s), so a revocation or plan change is seen within that time
 * by every gateway; a key not found is remembered for `unknownTtlMs`, so a repeated unknown key
 * costs no query; concurrent lookups of one key share one query. Found and not-found keys are
 * cached in two bounded structures, so any number of guessed keys cannot push the real keys out.
 */
@Injectable()
export class ApiKeyAuthenticator {
  /** Keyed by a digest of the key, never the key itself. */
  private readonly known: LRUCache<string, Principal>;
  private readonly unknown: LRUCache<string, true>;
  private readonly inFlight = new Map<string, Promise<Principal | null>>();

  constructor(
    private readonly repository: AccountsRepository,
    @Inject(GATEWAY_CONFIG) { AUTH_CACHE_TTL_MS }: Pick<GatewayConfig, 'AUTH_CACHE_TTL_MS'>,
    /** DEFAULT_SIZES unless a test makes them small. */
    @Optional() sizes: KeyCacheSizes = DEFAULT_SIZES,
  ) {
    this.known = new LRUCache<string, Principal>({ max: sizes.known, ttl: Math.max(AUTH_CACHE_TTL_MS, 1) });
    this.unknown = new LRUCache<string, true>({ max: sizes.unknown, ttl: Math.max(sizes.unknownTtlMs, 1) });
  }

  /** The principal of a key found in the last AUTH_CACHE_TTL_MS, synchronously (no promise on the hot path). */
  cached(apiKey: string): Principal | undefined {
    // No pattern or checksum here: only keys that passed them are in the map.
    return apiKey.startsWith(API_KEY_PREFIX) ? this.known.get(digestOf(apiKey)) : undefined;
  }

  /** The principal, or null for a key that is malformed (no lookup), unknown or revoked. */
  lookup(apiKey: string): Promise<Principal | null> {
    if (!isWellFormedApiKey(apiKey)) return Promise.resolve(null);
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
