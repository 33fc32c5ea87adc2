import { DomainMessage, PublicEvent } from '@svc/contracts';
import { closeVhostConnections, suitePipeline } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The broker drops events-api's connection while its handlers hold messages (events-api is paused
 * with deliveries in its socket, its connection is closed, then it resumes): their acks go to a
 * closed channel. Only this suite's vhost's connections are closed.
 */
describe('broker disconnect while handlers run (events-api, real RabbitMQ)', () => {
  const pipeline = suitePipeline();

  /** The account's feed; empty while it does not answer (events-api down). */
  const feed = async (key: string): Promise<PublicEvent[]> => {
    const response = await pipeline.stack.call('/events?limit=200', { key });
    if (response.status !== 200) {
      await response.body?.cancel();
      return [];
    }
    return ((await response.json()) as { events: PublicEvent[] }).events;
  };
  const markers = (events: Array<{ data: unknown }>) =>
    events.map((e) => (e.data as { message: { id: number } }).message.id).sort((a, b) => a - b);

  it('keeps the process up (healthz answers) and still gets every event into the feed once', async () => {
    const account = await pipeline.stack.newAccount('Disconnect');
    const eventsApi = pipeline.stack.services['events-api']!;
    const pid = eventsApi.process.pid!;
    const sent: DomainMessage[] = [];
    process.kill(pid, 'SIGSTOP');
    try {
      for (let n = 1; n <= 20; n++) sent.push(await pipeline.producer.emit('message.received', account.accountId, n));
      const deadline = Date.now() + 20_000;
      while ((await pipeline.producer.pending()) > 0 && Date.now() < deadline) await sleep(100);
      await sleep(500); // the broker pushes the deliveries into the paused process's socket
      expect(await closeVhostConnections(pipeline.stack.vhost.name)).toBeGreaterThan(0);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    let events: PublicEvent[] = [];
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      events = await feed(account.key);
      if (events.length >= sent.length || eventsApi.process.exitCode !== null || eventsApi.process.signalCode !== null) break;
      await sleep(250);
    }
    await sleep(1_500); // a duplicate would show up by now
    events = await feed(account.key);
    expect(eventsApi.process.exitCode).toBeNull();
    expect(eventsApi.process.signalCode).toBeNull();
    expect((await fetch(`${eventsApi.url}/healthz`)).status).toBe(200);
    // Handlers did finish on the dead channel: their acks were logged and dropped.
    expect(eventsApi.output()).toMatch(/ack failed \(the channel is closed\)/);
    expect(markers(events)).toEqual(markers(sent));
  }, 120_000);
});
