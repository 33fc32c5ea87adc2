import { BatchQueue } from './batch-queue';

interface Item {
  lane: string;
  n: number;
}

/** A queue whose writes are recorded and held until `release` (each write waits for the next release). */
function heldQueue(writers: number, refuse: (item: Item) => boolean = () => false) {
  const writes: string[] = [];
  const held: Array<() => void> = [];
  const queue = new BatchQueue<Item>({
    maxBatch: 2,
    writers,
    lane: (item) => item.lane,
    write: async (batch, lane) => {
      writes.push(`${lane}:${batch.map((i) => i.n).join(',')}`);
      await new Promise<void>((resolve) => held.push(resolve));
      if (batch.some(refuse)) throw Object.assign(new Error('value out of range'), { code: '22003' });
    },
  });
  const release = async () => {
    while (held.length > 0) held.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, writes, release };
}

describe('BatchQueue', () => {
  it('writes at once when idle and groups what comes meanwhile, at most maxBatch a write', async () => {
    const { queue, writes, release } = heldQueue(1);
    const added = [1, 2, 3, 4].map((n) => queue.add({ lane: 'a', n }));
    expect(writes).toEqual(['a:1']);
    await release();
    expect(writes).toEqual(['a:1', 'a:2,3']);
    await release();
    await release();
    await Promise.all(added);
    expect(writes).toEqual(['a:1', 'a:2,3', 'a:4']);
  });

  it('gives each lane its own writers, and a lane as many writes in flight as writers', async () => {
    const { queue, writes, release } = heldQueue(2);
    const added = [
      queue.add({ lane: 'a', n: 1 }),
      queue.add({ lane: 'a', n: 2 }),
      queue.add({ lane: 'b', n: 3 }),
      queue.add({ lane: 'a', n: 4 }),
    ];
    expect(writes).toEqual(['a:1', 'a:2', 'b:3']);
    await release();
    await release();
    await Promise.all(added);
    expect(writes).toEqual(['a:1', 'a:2', 'b:3', 'a:4']);
  });

  it('writes a refused batch again item by item: only the refused item fails', async () => {
    const { queue, writes, release } = heldQueue(1, (item) => item.n === 3);
    const first = queue.add({ lane: 'a', n: 1 });
    const rest = [2, 3].map((n) =>
      queue.add({ lane: 'a', n }).then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    );
    await release();
    await release();
    await release();
    await release();
    await first;
    expect(await Promise.all(rest)).toEqual(['ok', 'value out of range']);
    expect(writes).toEqual(['a:1', 'a:2,3', 'a:2', 'a:3']);
  });
});
