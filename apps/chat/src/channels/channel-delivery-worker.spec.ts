import { createLogger } from '@svc/platform';
import { MailSink } from '@svc/testing';
import { Writable } from 'node:stream';
import { ChannelDeliveriesRepository, ChannelDelivery } from './channel-deliveries.repository';
import { ChannelDeliveryWorker } from './channel-delivery-worker';
import { CloudApiProvider, EmailSender, withoutAddresses } from './senders';

/** Every log line written, as text. */
function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: createLogger('chat', 'info', stream) };
}

describe('email delivery: an SMTP refusal that quotes the recipient', () => {
  let sink: MailSink;

  beforeAll(async () => {
    sink = await MailSink.start(0, (to) =>
      to.toLowerCase().startsWith('ada') ? `5.1.1 <${to}>: Recipient address rejected: user unknown` : undefined,
    );
  });

  afterAll(async () => {
    await sink?.stop();
  });

  it('is logged and stored without the address (a real SMTP server answers 550 naming it)', async () => {
    const { lines, logger } = capturedLogger();
    const email = new EmailSender(sink.url, 'Chat <no-reply@localhost>', logger);
    const parked: string[] = [];
    // The repository only is stood in for: the sender and the SMTP server are real.
    const delivery: ChannelDelivery = {
      id: 7,
      account_id: '00000000-0000-4000-8000-000000000001',
      conversation_id: 1,
      attempts: 0,
      payload: { kind: 'email', email: { to: 'Ada.Lovelace@Example.com', subject: 'Confirm', text: 'Hi', html: '<p>Hi</p>' } },
    };
    const deliveries = {
      claimDue: async () => [delivery],
      markSent: async () => undefined,
      retryLater: async () => undefined,
      park: async (_id: number, error: string) => {
        parked.push(error);
      },
    } as unknown as ChannelDeliveriesRepository;
    const worker = new ChannelDeliveryWorker(deliveries, new CloudApiProvider('', '', 1_000), email, 1_000, 1_000, logger);
    expect(await worker.runOnce()).toBe(1);
    email.close();

    expect(parked).toHaveLength(1);
    expect(parked[0]).toContain('Recipient address rejected');
    expect(parked[0]).toContain('[email]');
    const logged = lines.join('');
    expect(logged).toContain('Recipient address rejected');
    expect(logged).toContain('delivery refused for good');
    for (const text of [logged, parked[0]!]) {
      expect(text.toLowerCase()).not.toContain('ada.lovelace@example.com');
      expect(text.toLowerCase()).not.toContain('lovelace');
    }
  });

  it('removes the recipient and any other address from a message', () => {
    expect(withoutAddresses('550 <bob@example.com>: no such user; cc eve@x.org', 'bob@example.com')).toBe(
      '550 <[email]>: no such user; cc [email]',
    );
    expect(withoutAddresses('421 try later', 'bob@example.com')).toBe('421 try later');
  });
});
