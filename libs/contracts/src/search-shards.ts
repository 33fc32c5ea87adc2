/**
 * Search shards: knowledge-api replicas may each hold the in-memory index of only some accounts
 * (docs/adr/018-search-shards.md). An account belongs to one shard of `count`, by a hash of its id
 * that every app computes alike, so no table says where an account is and no account moves unless
 * the count changes.
 */
export interface SearchShard {
  /** This shard, from 0. */
  index: number;
  /** How many shards the accounts are spread over; 1: every replica holds every account. */
  count: number;
}

/** Every account on one shard: a knowledge-api that is not sharded. */
export const WHOLE_INDEX: SearchShard = { index: 0, count: 1 };

/** The shard of `count` that holds the account's pieces (FNV-1a, 32 bits, of its id). */
export function searchShardOf(accountId: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < accountId.length; i += 1) {
    hash ^= accountId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/** Reads `index/count` (`0/1`, `2/4`); throws on anything else. */
export function parseSearchShard(value: string): SearchShard {
  const match = /^(\d{1,3})\/(\d{1,3})$/.exec(value.trim());
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [Number.NaN, Number.NaN];
  if (!(count >= 1 && index >= 0 && index < count)) throw new Error('must be index/count with 0 ≤ index < count, as 0/1 or 1/4');
  return { index, count };
}
