import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import pino from 'pino';
import { APP_LOGGER } from '@svc/platform';
import { domainMessage } from './outbox';
import { contactErasureConsumer } from './erasure-consumer';
import { InvalidMessageError } from './failures';

class Records {
  readonly erased: Array<[string, number]> = [];

  async erase(accountId: string, svcId: number): Promise<number> {
    this.erased.push([accountId, svcId]);
    return 2;
  }
}

const Consumer = contactErasureConsumer(Records, 'records', (records, accountId, svcId) => records.erase(accountId, svcId));

describe('contactErasureConsumer', () => {
  const account = '5b0c3a52-9d0e-4f7e-8a3c-2d1f6e9b7a10';
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  let records: Records;
  let consumer: InstanceType<typeof Consumer>;

  beforeEach(() => {
    lines.length = 0;
    records = new Records();
    consumer = new Consumer(records, logger);
  });

  it('is the handler of contact.erased, with the service and the logger injected', () => {
    expect(Reflect.getMetadata(PATTERN_METADATA, Consumer.prototype.erase)).toEqual(['contact.erased']);
    expect(Reflect.getMetadata('self:paramtypes', Consumer)).toEqual(
      expect.arrayContaining([
        { index: 0, param: Records },
        { index: 1, param: APP_LOGGER },
      ]),
    );
  });

  it('erases the customer the message names, in its account, and logs how many records changed', async () => {
    await consumer.erase(domainMessage('contact.erased', account, { svc_id: 311, ref: 'c-1' }));
    expect(records.erased).toEqual([[account, 311]]);
    expect(lines).toEqual([expect.objectContaining({ account_id: account, changed: 2, msg: 'erased a customer from records' })]);
  });

  it('refuses a malformed message, erasing nothing (it is parked)', async () => {
    await expect(consumer.erase({ ...domainMessage('contact.erased', account, { svc_id: 311, ref: null }), data: {} })).rejects.toThrow(
      InvalidMessageError,
    );
    expect(records.erased).toEqual([]);
  });
});
