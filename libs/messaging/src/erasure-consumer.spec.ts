import { Controller } from '@nestjs/common';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { domainMessage } from './outbox';
import { ContactErasureConsumer } from './erasure-consumer';
import { InvalidMessageError } from './failures';

@Controller()
class Consumer extends ContactErasureConsumer {
  readonly erased: Array<[string, number]> = [];

  protected async eraseContact(accountId: string, svcId: number): Promise<void> {
    this.erased.push([accountId, svcId]);
  }
}

describe('ContactErasureConsumer', () => {
  const account = '5b0c3a52-9d0e-4f7e-8a3c-2d1f6e9b7a10';

  it("is the subclass's handler of contact.erased", () => {
    expect(Reflect.getMetadata(PATTERN_METADATA, Consumer.prototype.erase)).toEqual(['contact.erased']);
  });

  it('erases the customer the message names, in its account', async () => {
    const consumer = new Consumer();
    await consumer.erase(domainMessage('contact.erased', account, { svc_id: 311, ref: 'c-1' }));
    expect(consumer.erased).toEqual([[account, 311]]);
  });

  it('refuses a malformed message, erasing nothing (it is parked)', async () => {
    const consumer = new Consumer();
    await expect(consumer.erase({ ...domainMessage('contact.erased', account, { svc_id: 311, ref: null }), data: {} })).rejects.toThrow(
      InvalidMessageError,
    );
    expect(consumer.erased).toEqual([]);
  });
});
