import { domainMessage, InvalidMessageError } from '@svc/messaging';
import pino from 'pino';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryService } from './delivery.service';
import { ErasuresConsumer } from './erasures.consumer';

describe('ErasuresConsumer', () => {
  const account = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const calls: string[] = [];
  const repository = {
    recordErasure: jest.fn(async () => void calls.push('record')),
    rewriteBodiesOf: jest.fn(async () => (calls.push('blank'), 2)),
  };
  const consumer = new ErasuresConsumer(new DeliveryService(repository as unknown as DeliveriesRepository), pino({ level: 'silent' }));

  beforeEach(() => {
    calls.length = 0;
    jest.clearAllMocks();
  });

  it("records the customer as erased before it blanks their deliveries' bodies", async () => {
    await consumer.erase(domainMessage('contact.erased', account, { svc_id: 311, ref: 'c-1' }));
    expect(calls).toEqual(['record', 'blank']);
    expect(repository.recordErasure).toHaveBeenCalledWith(account, 311);
    expect(repository.rewriteBodiesOf).toHaveBeenCalledWith({ accountId: account, svcIds: [311] }, expect.any(Function));
  });

  it('parks a malformed erasure (InvalidMessageError) without touching anything', async () => {
    await expect(
      consumer.erase({ ...domainMessage('contact.erased', account, { svc_id: 311, ref: null }), data: {} }),
    ).rejects.toBeInstanceOf(InvalidMessageError);
    expect(calls).toEqual([]);
  });
});
