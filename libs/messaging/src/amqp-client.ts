import { ChannelModel, connect, RecoveringChannelModel } from 'amqplib';
import type { Logger } from 'pino';

type Setup = (model: ChannelModel) => Promise<void>;

const CLOSE_TIMEOUT_MS = 5_000;

/** Resolves when `closing` settles or after CLOSE_TIMEOUT_MS: a half-dead socket must not hold up shutdown. */
export async function closeWithin(closing: Promise<unknown> | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    (closing ?? Promise.resolve()).catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
}

/**
 * One AMQP connection per process, recovered with backoff; setups recreate channels on every (re)connect.
 * Starting never waits for the broker: writes go on into the outbox while RabbitMQ is down.
 */
export class AmqpClient {
  private model?: RecoveringChannelModel;
  private current?: ChannelModel;
  private readonly setups: Setup[] = [];

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly connectionName: string,
  ) {}

  get isConnected(): boolean {
    return this.current !== undefined;
  }

  /** The connection of the moment (undefined while disconnected): for short-lived channels of its own. */
  get connection(): ChannelModel | undefined {
    return this.current;
  }

  /** Runs `setup` now if connected and after every reconnect. */
  async addSetup(setup: Setup): Promise<void> {
    this.setups.push(setup);
    if (this.current) await setup(this.current);
  }

  async start(): Promise<void> {
    if (this.model) return;
    this.model = await connect(this.url, {
      clientProperties: { connection_name: this.connectionName },
      // amqplib leaves Nagle's algorithm on: a publish's frames then wait for the broker's delayed
      // ACK, and every confirm and delivery takes ~40 ms instead of ~2 ms.
      noDelay: true,
      recovery: {
        waitForConnect: false,
        initialDelay: 200,
        maxDelay: 5_000,
        maxRetries: Infinity,
        setup: async (model: ChannelModel) => {
          this.current = model;
          for (const setup of this.setups) await setup(model);
        },
      },
    });
    this.model.on('connect', () => this.logger.info('rabbitmq connected'));
    this.model.on('disconnect', (err: Error) => {
      this.current = undefined;
      this.logger.warn({ err: err?.message }, 'rabbitmq connection lost; reconnecting');
    });
    this.model.on('connect-failed', (err: Error) => this.logger.warn({ err: err.message }, 'rabbitmq connection attempt failed'));
    this.model.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'rabbitmq error'));
  }

  async close(): Promise<void> {
    const model = this.model;
    this.model = undefined;
    this.current = undefined;
    await closeWithin(model?.close());
  }
}
