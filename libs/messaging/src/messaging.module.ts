import { Catch, DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit, RpcExceptionFilter } from '@nestjs/common';
import { INestApplication } from '@nestjs/common';
import { APP_LOGGER, ReadinessService } from '@svc/platform';
import type { Logger } from 'pino';
import { Observable, throwError } from 'rxjs';
import { DataSource } from 'typeorm';
import { AmqpClient } from './amqp-client';
import { Publisher } from './publisher';
import { OutboxRelay, RelayOptions } from './relay';
import { AmqpTransport } from './transport';
import type { QueueSpec } from './topology';

export interface MessagingOptions {
  /** RABBITMQ_URL. */
  url: string;
  /** Shown in the broker's connection list. */
  connectionName: string;
  /** The app's outbox: a relay publishes it. */
  outbox?: RelayOptions;
}

const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');

@Injectable()
class MessagingLifecycle implements OnModuleInit, OnApplicationShutdown {
  private relay?: OutboxRelay;

  constructor(
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
    @Inject(APP_LOGGER) private readonly logger: Logger,
    private readonly client: AmqpClient,
    private readonly publisher: Publisher,
    private readonly readiness: ReadinessService,
    @Inject(DataSource) private readonly db: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    // Reported, not required: writes go to the outbox and wait there while the broker is away.
    this.readiness.register(
      'rabbitmq',
      async () => {
        if (!this.client.isConnected) throw new Error('disconnected');
      },
      { critical: false },
    );
    await this.client.start();
    if (this.options.outbox) {
      const relay = new OutboxRelay(this.db, this.publisher, this.logger.child({ component: 'outbox-relay' }), this.options.outbox);
      this.relay = relay;
      // After a reconnect the publisher's channel is back: publish what waited.
      await this.client.addSetup(async () => relay.wake());
      await relay.start();
    }
  }

  /** After the HTTP listener drained (requests may have enqueued), before the pools close. */
  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
    await this.client.close();
  }
}

/** The settings `MessagingModule.forApp` reads (messagingConfigSpec and outboxConfigSpec). */
export interface MessagingAppConfig {
  RABBITMQ_URL: string;
  DATABASE_URL: string;
  OUTBOX_BATCH_SIZE?: number;
  OUTBOX_POLL_INTERVAL_MS?: number;
  OUTBOX_RETENTION_MS?: number;
}

/**
 * RabbitMQ for an app: one recovering connection, a confirm-channel publisher, and the relay of the
 * app's transactional outbox. Needs the app's DataSource (PersistenceModule).
 */
@Module({})
export class MessagingModule {
  /** The usual wiring: connection named after the app, relay of `outboxSchema`'s outbox if given. */
  static forApp(name: string, config: MessagingAppConfig, outboxSchema?: string): DynamicModule {
    return MessagingModule.forRoot({
      url: config.RABBITMQ_URL,
      connectionName: name,
      ...(outboxSchema
        ? {
            outbox: {
              schema: outboxSchema,
              databaseUrl: config.DATABASE_URL,
              batchSize: config.OUTBOX_BATCH_SIZE ?? 200,
              pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS ?? 1_000,
              retentionMs: config.OUTBOX_RETENTION_MS ?? 3_600_000,
            },
          }
        : {}),
    });
  }

  static forRoot(options: MessagingOptions): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: options },
        {
          provide: AmqpClient,
          inject: [APP_LOGGER],
          useFactory: (logger: Logger) => new AmqpClient(options.url, logger.child({ component: 'rabbitmq' }), options.connectionName),
        },
        {
          provide: Publisher,
          inject: [AmqpClient, APP_LOGGER],
          useFactory: (client: AmqpClient, logger: Logger) => new Publisher(client, logger.child({ component: 'publisher' })),
        },
        MessagingLifecycle,
      ],
      exports: [AmqpClient, Publisher],
    };
  }
}

/** Event handlers see their own errors (the default filter would replace them with a generic object). */
@Catch()
class RethrowFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}

/**
 * Serves the app's `@EventPattern` handlers from `queues` (call from the app's `configure`). The
 * consumer stops with the app, after the HTTP listener has drained.
 */
export async function consumeQueues(app: INestApplication, queues: QueueSpec[], prefetch: number): Promise<void> {
  const logger = app.get<Logger>(APP_LOGGER);
  const strategy = new AmqpTransport({ client: app.get(AmqpClient), queues, prefetch, logger: logger.child({ component: 'consumer' }) });
  const microservice = app.connectMicroservice({ strategy }, { inheritAppConfig: false });
  microservice.useGlobalFilters(new RethrowFilter());
  await app.startAllMicroservices();
}
