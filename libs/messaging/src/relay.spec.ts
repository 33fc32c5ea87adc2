import pino from 'pino';
import type { DataSource } from 'typeorm';
import { Publisher } from './publisher';
import { OutboxRelay } from './relay';

/**
 * The relay's wake-up bookkeeping, with a stand-in for its database whose claims the test answers
 * (the claims and publishing themselves are tested against PostgreSQL and RabbitMQ in
 * libs/testing/src/relay.integration-spec.ts).
 */
describe('OutboxRelay wake-ups', () => {
  function relayWithHeldClaims() {
    const claims: Array<(rows: unknown[]) => void> = [];
    const client = {
      query: (sql: string) =>
        sql.startsWith('BEGIN') ? new Promise((resolve) => claims.push((rows) => resolve([{}, {}, { rows }]))) : Promise.resolve([]),
    };
    const runner = { connect: async () => client, query: async () => ({ records: [], affected: 0 }), release: async () => undefined };
    const db = { createQueryRunner: () => runner } as unknown as DataSource;
    const publisher = { isReady: true, publish: async () => undefined } as unknown as Publisher;
    // No database listens at this address: the relay is woken only by the test (and a poll that never comes).
    const relay = new OutboxRelay(db, publisher, pino({ level: 'silent' }), {
      schema: 'chat',
      databaseUrl: 'postgres://127.0.0.1:1/none',
      batchSize: 200,
      pollIntervalMs: 3_600_000,
    });
    return { relay, claims };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('starts one round after a claim for the wake-ups that came during it, not one each, and none without them', async () => {
    const { relay, claims } = relayWithHeldClaims();
    await relay.start();
    await settle();
    expect(claims).toHaveLength(1);
    relay.wake();
    relay.wake();
    relay.wake();
    await settle();
    expect(claims).toHaveLength(1);
    claims[0]!([]);
    await settle();
    expect(claims).toHaveLength(2);
    claims[1]!([]);
    await settle();
    expect(claims).toHaveLength(2);
    await relay.stop();
  });

  it('lets the next round claim while the previous one publishes', async () => {
    const { relay, claims } = relayWithHeldClaims();
    await relay.start();
    await settle();
    claims[0]!([{ seq: '1', id: 'a', exchange: 'svc.domain', routing_key: 'message.sent', body: {} }]);
    relay.wake();
    await settle();
    expect(claims).toHaveLength(2);
    claims[1]!([]);
    await relay.stop();
  });
});
