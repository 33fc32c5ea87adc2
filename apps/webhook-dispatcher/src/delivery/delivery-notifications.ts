import { listen } from '@svc/persistence';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { DELIVERIES_CHANNEL } from './deliveries.repository';

const RECONNECT_DELAY_MS = 1_000;

/**
 * LISTENs for new deliveries on a connection of its own, so that workers start within
 * milliseconds of the insert's commit. Reconnects after a failure and then wakes the workers once
 * (a notification may have been missed); the workers' poll covers the gap.
 */
export class DeliveryNotifications {
  private client?: Client;
  private closed = false;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  onNotify(listener: () => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    void this.connect();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private async connect(): Promise<void> {
    while (!this.closed) {
      const client = new Client({ connectionString: this.databaseUrl, application_name: 'webhook-dispatcher-listen' });
      try {
        client.on('notification', () => this.notify());
        client.on('error', (err) => {
          this.logger.warn({ err: err.message }, 'delivery notifications connection failed; reconnecting');
          void client.end().catch(() => undefined);
        });
        client.on('end', () => {
          if (this.client === client) this.client = undefined;
          if (!this.closed) void sleep(RECONNECT_DELAY_MS).then(() => this.connect());
        });
        await client.connect();
        await listen(client, [DELIVERIES_CHANNEL]);
        this.client = client;
        this.notify();
        return;
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'cannot listen for deliveries; retrying');
        client.removeAllListeners('end');
        await client.end().catch(() => undefined);
        await sleep(RECONNECT_DELAY_MS);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }
}
