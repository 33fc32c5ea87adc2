import { DynamicModule, Module } from '@nestjs/common';
import { APP_LOGGER, componentLoggers, MetricsService } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AmqpClient } from './amqp-client';
import { MessagingLifecycle } from './messaging-lifecycle';
import { relayMetrics } from './metrics';
import { Publisher } from './publisher';
import { OutboxRelay, RELAY_METRICS, RELAY_OPTIONS, RelayOptions } from './relay';

export interface MessagingOptions {
  /** RABBITMQ_URL. */
  url: string;
  /** Shown in the broker's connection list. */
  connectionName: string;
  /** The app's outbox: a relay publishes it. */
  outbox?: RelayOptions;
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
    const outbox = options.outbox;
    return {
      module: MessagingModule,
      global: true,
      providers: [
        {
          provide: AmqpClient,
          inject: [APP_LOGGER],
          useFactory: (logger: Logger) => new AmqpClient(options.url, logger.child({ component: 'rabbitmq' }), options.connectionName),
        },
        ...componentLoggers('publisher', ...(outbox ? ['outbox-relay'] : [])),
        Publisher,
        ...(outbox
          ? [
              { provide: RELAY_OPTIONS, useValue: outbox },
              {
                provide: RELAY_METRICS,
                inject: [MetricsService, DataSource],
                useFactory: (metrics: MetricsService, db: DataSource) => relayMetrics(metrics, db, outbox.schema),
              },
              OutboxRelay,
            ]
          : []),
        MessagingLifecycle,
      ],
      exports: [AmqpClient, Publisher, ...(outbox ? [OutboxRelay] : [])],
    };
  }
}
