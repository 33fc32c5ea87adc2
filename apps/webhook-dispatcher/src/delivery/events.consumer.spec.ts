import { RecordedEvent } from '@svc/contracts';
import { InvalidMessageError } from '@svc/messaging';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryService } from './delivery.service';
import { EventsConsumer } from './events.consumer';

describe('EventsConsumer', () => {
  const insertForEvents = jest.fn<
    ReturnType<DeliveriesRepository['insertForEvents']>,
    Parameters<DeliveriesRepository['insertForEvents']>
  >();
  const consumer = new EventsConsumer(new DeliveryService({ insertForEvents } as unknown as DeliveriesRepository));
  const account = '0f8fad5b-d9cb-469f-a165-70867728950e';

  beforeEach(() => insertForEvents.mockReset().mockResolvedValue({ inserted: 1, leased: [] }));

  it('stores the body in the contract field order, whatever order the message had (jsonb sorts keys)', async () => {
    const jsonbOrdered = {
      account_id: account,
      event_id: 'e-1',
      event: { at: '2026-11-21T10:04:05.123456+00:00', id: 7, data: { b: 1, a: 'Grüße' }, event: 'message.sent' },
    };
    await consumer.record(jsonbOrdered);
    const [[{ accountId, eventId, kind, body }]] = insertForEvents.mock.calls[0]!;
    expect([accountId, eventId, kind]).toEqual([account, 7, 'message.sent']);
    expect(body.toString('utf8')).toBe(
      '{"id":7,"event":"message.sent","at":"2026-11-21T10:04:05.123456+00:00","data":{"b":1,"a":"Grüße"}}',
    );
  });

  it('parks a malformed recorded event (InvalidMessageError) without storing anything', async () => {
    const malformed = {
      account_id: account,
      event_id: 'e-1',
      event: { id: -1, event: 'message.sent', at: 'x', data: {} },
    } as unknown as RecordedEvent;
    await expect(consumer.record(malformed)).rejects.toBeInstanceOf(InvalidMessageError);
    expect(insertForEvents).not.toHaveBeenCalled();
  });

  it('lets a database failure through, so the message is redelivered', async () => {
    insertForEvents.mockRejectedValueOnce(new Error('connection lost'));
    await expect(
      consumer.record({ account_id: account, event_id: 'e-1', event: { id: 1, event: 'message.sent', at: 'x', data: {} } }),
    ).rejects.toThrow('connection lost');
  });
});
