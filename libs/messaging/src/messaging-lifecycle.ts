import { Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { ReadinessService } from '@svc/platform';
import { AmqpClient } from './amqp-client';
import { OutboxRelay } from './relay';

/** Connects at start (the relay with it) and closes after the HTTP listener drained. */
@Injectable()
export class MessagingLifecycle implements OnModuleInit, OnApplicationShutdown {
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
