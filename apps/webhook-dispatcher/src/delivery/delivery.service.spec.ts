import { RecordedEvent } from '@svc/contracts';
import { DeliveriesRepository, InsertedDeliveries, NewEvent } from './deliveries.repository';
import { DeliveryService } from './delivery.service';

describe('DeliveryService batching', () => {
  const account = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const recorded = (id: number) =>
    ({
      account_id: account,
      event_id: `e-${id}`,
      event: { id, event: 'message.sent', at: '2026-11-21T10:04:05.123456+00:00', data: {} },
    }) as unknown as RecordedEvent;

  /** A repository whose inserts are answered when the test says so. */
  function heldRepository() {
    const calls: Array<{ events: NewEvent[]; answer: (err?: Error) => void }> = [];
    const insertForEvents = (events: readonly NewEvent[]) =>
      new Promise<InsertedDeliveries>((resolve, reject) =>
        calls.push({ events: [...events], answer: (err) => (err ? reject(err) : resolve({ inserted: events.length, leased: [] })) }),
      );
    return { calls, repository: { insertForEvents } as unknown as DeliveriesRepository };
  }

  it('inserts at once at low load, and puts what arrives meanwhile into the next insert', async () => {
    const { calls, repository } = heldRepository();
    const service = new DeliveryService(repository);
    const first = service.recordEvent(recorded(1));
    const second = service.recordEvent(recorded(2));
    const rest = [3, 4, 5, 6].map((id) => service.recordEvent(recorded(id)));
    // Two inserts in flight at most: 1 and 2 went alone, 3–6 wait for one of them.
    expect(calls.map((c) => c.events.map((e) => e.eventId))).toEqual([[1], [2]]);
    calls[0]!.answer();
    await first;
    await new Promise(setImmediate);
    expect(calls.map((c) => c.events.map((e) => e.eventId))).toEqual([[1], [2], [3, 4, 5, 6]]);
    calls[1]!.answer();
    calls[2]!.answer();
    await Promise.all([second, ...rest]);
  });

  it('fails every event of a batch whose insert failed, and only those', async () => {
    const { calls, repository } = heldRepository();
    const service = new DeliveryService(repository);
    const one = service.recordEvent(recorded(1));
    const two = service.recordEvent(recorded(2));
    calls[0]!.answer(new Error('connection lost'));
    calls[1]!.answer();
    await expect(one).rejects.toThrow('connection lost');
    await expect(two).resolves.toBeUndefined();
  });

  it('inserts the events of a batch the database refused one by one: only the bad one fails', async () => {
    const { calls, repository } = heldRepository();
    const service = new DeliveryService(repository);
    const held = [1, 2].map((id) => service.recordEvent(recorded(id)));
    const batch = [3, 4, 5].map((id) =>
      service.recordEvent(recorded(id)).then(
        () => 'ok',
        (err: Error) => err,
      ),
    );
    calls[0]!.answer();
    await held[0];
    await new Promise(setImmediate);
    expect(calls[2]!.events.map((e) => e.eventId)).toEqual([3, 4, 5]);
    calls[2]!.answer(Object.assign(new Error('invalid byte sequence'), { code: '22021' }));
    for (const [index, id] of [
      [3, 3],
      [4, 4],
      [5, 5],
    ] as const) {
      await new Promise(setImmediate);
      expect(calls[index]!.events.map((e) => e.eventId)).toEqual([id]);
      calls[index]!.answer(id === 4 ? Object.assign(new Error('invalid byte sequence'), { code: '22021' }) : undefined);
    }
    calls[1]!.answer();
    expect(await Promise.all(batch)).toEqual(['ok', expect.objectContaining({ code: '22021' }), 'ok']);
  });
});
