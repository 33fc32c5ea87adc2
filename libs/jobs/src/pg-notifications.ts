import { listen } from '@svc/persistence';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';

const RECONNECT_DELAY_MS = 1_000;

export interface PgNotificationsOptions {
  databaseUrl: string;
  channel: string;
  /** `application_name` of the connection (pg_stat_activity). */
  applicationName: string;
}

/**
 * LISTENs on a connection of its own, so that workers start within milliseconds of a writer's
 * commit. Reconnects after a failure and then notifies once (a notification may have been
 * missed); the workers' poll covers the gap.
 */
export class PgNotifications {
  private client?: Client;
  private closed = false;
  private started = false;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly options: PgNotificationsOptions,
    private readonly logger: Logger,
  ) {}

  onNotify(listener: () => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.connect();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private async connect(): Promise<void> {
    const { databaseUrl, channel, applicationName } = this.options;
    while (!this.closed) {
      const client = new Client({ connectionString: databaseUrl, application_name: applicationName });
      try {
        client.on('notification', () => this.notify());
        client.on('error', (err) => {
          this.logger.warn({ err: err.message }, `LISTEN ${channel}: connection failed; reconnecting`);
          void client.end().catch(() => undefined);
        });
        client.on('end', () => {
          if (this.client === client) this.client = undefined;
          if (!this.closed) void sleep(RECONNECT_DELAY_MS).then(() => this.connect());
        });
        await client.connect();
        await listen(client, [channel]);
        if (this.closed) {
          await client.end();
          return;
        }
        this.client = client;
        this.notify();
        return;
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, `cannot LISTEN ${channel}; retrying`);
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
