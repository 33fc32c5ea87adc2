import { DomainMessage, EventKind, sampleEventData } from '@svc/contracts';
import { domainMessage } from '@svc/messaging';
import { AppendBatcher } from './append-batcher';
import { EventsRepository } from './events.repository';

const ACCOUNT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const message = (n: number) =>
  domainMessage('message.received', ACCOUNT, sampleEventData('message.received', { n })) as DomainMessage<EventKind>;
const dataError = () => Object.assign(new Error('time zone displacement out of range'), { code: '22009' });

/** An event log whose appends are answered by `answer` (the first one is held until `release`). */
function fakeLog(answer: (batch: ReadonlyArray<DomainMessage<EventKind>>) => Promise<number>) {
  const calls: string[][] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const append = async (_account: string, batch: ReadonlyArray<DomainMessage<EventKind>>) => {
    calls.push(batch.map((m) => m.id));
    if (calls.length === 1) await held;
    return answer(batch);
  };
  return { calls, release: () => release(), log: { append } as unknown as EventsRepository };
}

describe('AppendBatcher', () => {
  it('appends the messages of a failed batch one by one: only the one the database refuses fails', async () => {
    const bad = message(99);
    const fake = fakeLog(async (batch) => {
      if (batch.some((m) => m.id === bad.id)) throw dataError();
      return batch.length;
    });
    const batcher = new AppendBatcher(fake.log);
    const first = batcher.append(message(1));
    const [good1, good2] = [message(2), message(3)];
    const results = [batcher.append(good1), batcher.append(bad), batcher.append(good2)].map((p) =>
      p.then(
        () => 'ok',
        (err: Error) => err,
      ),
    );
    fake.release();
    await first;
    const [r1, rBad, r2] = await Promise.all(results);
    expect([r1, r2]).toEqual(['ok', 'ok']);
    expect(rBad).toMatchObject({ code: '22009' });
    expect(fake.calls.slice(1)).toEqual([[good1.id, bad.id, good2.id], [good1.id], [bad.id], [good2.id]]);
  });

  it('fails a whole batch at once when the database is away (no message-by-message retry)', async () => {
    const fake = fakeLog(async () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
    );
    const batcher = new AppendBatcher(fake.log);
    const first = batcher.append(message(1)).catch((err: Error) => err);
    const rest = [2, 3].map((n) => batcher.append(message(n)).catch((err: Error) => err));
    fake.release();
    expect(await first).toMatchObject({ code: 'ECONNREFUSED' });
    expect(await Promise.all(rest)).toEqual([
      expect.objectContaining({ code: 'ECONNREFUSED' }),
      expect.objectContaining({ code: 'ECONNREFUSED' }),
    ]);
    expect(fake.calls).toHaveLength(2);
  });
});
