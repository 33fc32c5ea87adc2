import { TEST_SERVER_URL } from '@svc/testing';
import pino from 'pino';
import { SecretBox } from '../security/secret-box';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { Claim, DeliveriesRepository } from './deliveries.repository';
import { DeliveryNotifications } from './delivery-notifications';
import { DeliveryWorker } from './delivery-worker';
import { WebhookSender } from './webhook-sender';

describe('DeliveryWorker.reserve', () => {
  // Nothing is claimed or sent here: the repository answers every claim with nothing.
  const repository = {
    claim: jest.fn().mockResolvedValue({ deliveries: [], leftBehind: false }),
    complete: jest.fn(),
  } as unknown as DeliveriesRepository;
  const config = (concurrency: number) =>
    ({
      WEBHOOK_CONCURRENCY: concurrency,
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: 4,
      WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: 8,
      WEBHOOK_TIMEOUT_MS: 4_000, // a lease of 9 s
      WEBHOOK_POLL_INTERVAL_MS: 60_000,
      WEBHOOK_RETRY_SCHEDULE: '1s',
      DATABASE_URL: TEST_SERVER_URL,
    }) as WebhookDispatcherConfig;
  const logger = pino({ level: 'silent' });
  const worker = (concurrency: number, deliveries = repository) => {
    const notifications = new DeliveryNotifications(config(concurrency), logger);
    return new DeliveryWorker(deliveries, {} as WebhookSender, {} as SecretBox, notifications, config(concurrency), logger);
  };
  /** Starts a worker and lets the claim that starting makes finish. */
  const started = async (w: DeliveryWorker) => {
    w.start();
    await new Promise(setImmediate);
    return w;
  };

  it('holds as much room as is free, up to what is asked, with the lease settings of the worker', async () => {
    const w = await started(worker(12));
    const first = w.reserve(10);
    expect(first?.lease).toMatchObject({ room: 10, leaseMs: 9_000, maxInFlightPerEndpoint: 4 });
    expect(first?.lease.token).toMatch(/^[0-9a-f-]{36}$/);
    first?.settle([]);
    expect(w.reserve(20)?.lease.room).toBe(12);
    await w.stop(0);
  });

  it('holds one reservation at a time, so that each insert counts the leases of the one before', async () => {
    const w = await started(worker(12));
    const first = w.reserve(4);
    expect(w.reserve(4)).toBeUndefined();
    first?.settle([]);
    expect(w.reserve(4)?.lease.room).toBe(4);
    await w.stop(0);
  });

  it('neither reserves during a claim nor claims during a reservation: a wake-up waits for the settle', async () => {
    let finishClaim = (_: Claim): void => undefined;
    const claim = jest.fn(() => new Promise<Claim>((resolve) => (finishClaim = resolve)));
    const w = worker(12, { claim, complete: jest.fn() } as unknown as DeliveriesRepository);
    w.start();
    expect(claim).toHaveBeenCalledTimes(1);
    expect(w.reserve(4)).toBeUndefined();
    finishClaim({ deliveries: [], leftBehind: false });
    await new Promise(setImmediate);

    const reservation = w.reserve(4);
    expect(reservation).toBeDefined();
    w.wake();
    w.wake();
    expect(claim).toHaveBeenCalledTimes(1);
    reservation?.settle([]);
    expect(claim).toHaveBeenCalledTimes(2);
    finishClaim({ deliveries: [], leftBehind: false });
    await new Promise(setImmediate);
    expect(claim).toHaveBeenCalledTimes(2);
    await w.stop(0);
  });

  it('gives back the room once however often settle is called', async () => {
    const w = await started(worker(10));
    const r = w.reserve(10);
    r?.settle([]);
    r?.settle([]);
    expect(w.reserve(20)?.lease.room).toBe(10);
    await w.stop(0);
  });

  it('reserves nothing in a process that does not deliver, or once stopping', async () => {
    const idle = worker(0);
    idle.start();
    expect(idle.reserve(10)).toBeUndefined();
    const w = worker(10);
    w.start();
    await w.stop(0);
    expect(w.reserve(10)).toBeUndefined();
  });
});
