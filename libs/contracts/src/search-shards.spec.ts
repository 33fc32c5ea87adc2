import { randomUUID } from 'node:crypto';
import { parseSearchShard, searchShardOf } from './search-shards';

describe('search shards', () => {
  it('reads index/count, and refuses a shard outside its count', () => {
    expect(parseSearchShard('0/1')).toEqual({ index: 0, count: 1 });
    expect(parseSearchShard(' 3/4 ')).toEqual({ index: 3, count: 4 });
    for (const bad of ['', '1/1', '4/4', '0/0', '-1/2', '1', '1/2/3', 'a/b', '0.5/2', '1 /2'])
      expect(() => parseSearchShard(bad)).toThrow();
  });

  it('puts an account on the same shard every time, and spreads accounts evenly', () => {
    const id = '3f1c2a9e-8b7d-4c65-a1f0-9e8d7c6b5a43';
    expect(searchShardOf(id, 4)).toBe(searchShardOf(id, 4));
    expect(searchShardOf(id, 1)).toBe(0);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4_000; i += 1) (counts[searchShardOf(randomUUID(), 4)] as number) += 1;
    for (const n of counts) expect(n).toBeGreaterThan(850);
  });

  it('is the FNV-1a hash of the id, which other languages can compute alike', () => {
    // FNV-1a 32 of "a" is 0xe40c292c.
    expect(searchShardOf('a', 2 ** 32 - 1)).toBe(0xe40c292c % (2 ** 32 - 1));
  });
});
