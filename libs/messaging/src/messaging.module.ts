import {
  Catch,
  DynamicModule,
  Injectable,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
  Optional,
  RpcExceptionFilter,
} from '@nestjs/common';
import { INestApplication } from '@nestjs/common';
import type { NestMicroservice } from '@nestjs/microservices';
import { APP_LOGGER, MetricsService, ReadinessService } from '@svc/platform';
import type { Logger } from 'pino';
import { Observable, throwError } from 'rxjs';
import { DataSource } from 'typeorm';
import { AmqpClient } from './amqp-client';
import { Publisher } from './publisher';
import { OutboxRelay, RelayOptions } from './relay';
import { consumerMetrics, relayMetrics } from './metrics';
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

@Injectable()
class MessagingLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly client: AmqpClient,
    private readonly readiness: ReadinessService,
    @Optional() private readonly relay?: OutboxRelay,
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
    const relay = this.relay;
    if (relay) {
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
}

/** RabbitMQ for an app: connection, confirm-channel publisher and the outbox's `OutboxRelay`; needs PersistenceModule. */
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
        ...(options.outbox
          ? [
              {
                provide: OutboxRelay,
                inject: [DataSource, Publisher, APP_LOGGER, MetricsService],
                useFactory: (db: DataSource, publisher: Publisher, logger: Logger, metrics: MetricsService) => {
                  const outbox = options.outbox as RelayOptions;
                  return new OutboxRelay(
                    db,
                    publisher,
                    logger.child({ component: 'outbox-relay' }),
                    outbox,
                    relayMetrics(metrics, db, outbox.schema),
                  );
                },
              },
            ]
          : []),
        MessagingLifecycle,
      ],
      exports: [AmqpClient, Publisher, ...(options.outbox ? [OutboxRelay] : [])],
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

/** Serves the app's `@EventPattern` handlers from `queues`; stops after the HTTP listener has drained. */
export async function consumeQueues(app: INestApplication, queues: QueueSpec[], prefetch: number): Promise<void> {
  const logger = app.get<Logger>(APP_LOGGER);
  const client = app.get(AmqpClient);
  const metrics = consumerMetrics(
    app.get(MetricsService),
    client,
    queues.map((q) => q.queue),
  );
  const strategy = new AmqpTransport({ client, queues, prefetch, logger: logger.child({ component: 'consumer' }), metrics });
  // The filter must be in place before the handlers are wrapped (registerListeners); otherwise Nest's
  // default filter replaces every error with a generic object and no failure can be classified.
  const microservice = app.connectMicroservice({ strategy }, { inheritAppConfig: false, deferInitialization: true }) as NestMicroservice;
  microservice.useGlobalFilters(new RethrowFilter());
  microservice.registerListeners();
  // The app's modules are initialised with the app: what connectMicroservice does without deferral.
  microservice.setIsInitialized(true);
  microservice.setIsInitHookCalled(true);
  await app.startAllMicroservices();
}
