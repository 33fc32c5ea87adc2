import { listen } from '@svc/persistence';
import { Client, Notification } from 'pg';
import type { Logger } from 'pino';
import { growingDelayMs } from './retry';

export type { Notification } from 'pg';

const RECONNECT_DELAY_MS = 1_000;
const MAX_RECONNECT_DELAY_MS = 15_000;

export interface PgNotificationsOptions {
  databaseUrl: string;
  /** The channel LISTENed on, or several on the one connection. */
  channel: string | readonly string[];
  /** `application_name` of the connection (pg_stat_activity). */
  applicationName: string;
  /**
   * Wait before the first new attempt after a lost connection or a failed attempt; 1 s by default.
   * It doubles with each attempt that fails in a row.
   */
  reconnectDelayMs?: number;
  /** The longest wait between two attempts; 15 s by default. */
  maxReconnectDelayMs?: number;
  /** Warning logged (with `err`) once per lost connection; by default names the channels. */
  lostLine?: string;
  /** Warning logged (with `err`) for each attempt that failed to connect or LISTEN; by default names the channels. */
  failedLine?: string;
}

/**
 * The one LISTEN connection of its user, kept up: it reconnects after a failure or a lost
 * connection (`reconnectDelayMs` after it, doubling while attempts keep failing), and whoever
 * listens learns when it is back (`onConnect`, `onNotify`) so that it can catch up on what was
 * notified while nobody listened.
 */
export class PgNotifications {
  private client?: Client;
  /** The connection being made (not LISTENing yet). */
  private connecting?: Client;
  private retry?: NodeJS.Timeout;
  private opened?: Promise<void>;
  private closed = false;
  private attempts = 0;
  /** Attempts that failed since the connection was last up. */
  private failuresInRow = 0;
  private readonly channels: readonly string[];
  private readonly wakeListeners: Array<() => void> = [];
  private readonly notificationListeners: Array<(notification: Notification) => void> = [];
  private readonly connectListeners: Array<(reconnected: boolean) => void> = [];

  constructor(
    private readonly options: PgNotificationsOptions,
    private readonly logger: Logger,
  ) {
    this.channels = typeof options.channel === 'string' ? [options.channel] : options.channel;
  }

  /** Whether the LISTEN connection is up now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Calls `listener` on each notification and after each (re)connection (one may have been missed meanwhile). */
  onNotify(listener: () => void): void {
    this.wakeListeners.push(listener);
  }

  /** Calls `listener` with each notification (its channel and payload). */
  onNotification(listener: (notification: Notification) => void): void {
    this.notificationListeners.push(listener);
  }

  /**
   * Calls `listener` each time the LISTEN is in place (`listening` is then true): `reconnected` is
   * false for the first attempt's connection, true for any later one (what was notified before it
   * may have been missed).
   */
  onConnect(listener: (reconnected: boolean) => void): void {
    this.connectListeners.push(listener);
  }

  /** Connects in the background. */
  start(): void {
    void this.open();
  }

  /** Connects; resolves once the first attempt has ended (LISTENing, or failed and retrying later). Never rejects. */
  open(): Promise<void> {
    this.opened ??= this.connect();
    return this.opened;
  }

  /** Ends the connection; no attempt follows. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const clients = [this.client, this.connecting];
    this.client = undefined;
    this.connecting = undefined;
    await Promise.all(clients.map((client) => client?.end().catch(() => undefined)));
  }

  private label(): string {
    return this.channels.join(', ');
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const reconnected = this.attempts++ > 0;
    const { databaseUrl, applicationName } = this.options;
    const client = new Client({ connectionString: databaseUrl, application_name: applicationName });
    this.connecting = client;
    let up = false;
    let lost: Error | undefined;
    const lose = (err: Error) => {
      if (lost) return;
      lost = err;
      if (!up) return; // the attempt below sees it
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.logger.warn({ err: err.message }, this.options.lostLine ?? `LISTEN ${this.label()}: connection failed; reconnecting`);
      this.reconnectSoon();
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('Connection ended')));
    client.on('notification', (notification) => {
      if (this.closed) return;
      for (const listener of this.notificationListeners) listener(notification);
      for (const listener of this.wakeListeners) listener();
    });
    try {
      await client.connect();
      await listen(client, this.channels);
      if (lost) throw lost;
    } catch (err) {
      if (this.connecting === client) this.connecting = undefined;
      await client.end().catch(() => undefined);
      if (this.closed) return;
      this.failuresInRow += 1;
      this.logger.warn({ err: (err as Error).message }, this.options.failedLine ?? `cannot LISTEN ${this.label()}; retrying`);
      this.reconnectSoon();
      return;
    }
    if (this.connecting === client) this.connecting = undefined;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    up = true;
    this.failuresInRow = 0;
    this.client = client;
    for (const listener of this.connectListeners) listener(reconnected);
    for (const listener of this.wakeListeners) listener();
  }

  private reconnectSoon(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(
      () => {
        this.retry = undefined;
        void this.connect();
      },
      growingDelayMs(
        this.failuresInRow + 1,
        this.options.reconnectDelayMs ?? RECONNECT_DELAY_MS,
        this.options.maxReconnectDelayMs ?? MAX_RECONNECT_DELAY_MS,
      ),
    );
    this.retry.unref();
  }
}
