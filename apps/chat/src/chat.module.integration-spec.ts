import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OutboxRelay } from '@svc/messaging';
import { loadConfig } from '@svc/platform';
import { createTestDatabase, createTestVhost, TestDatabase, TestVhost } from '@svc/testing';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { AssistantService } from './assistant/assistant.service';
import { ChannelDeliveryWorker } from './channels/channel-delivery-worker';
import { chatConfigSpec } from './chat.config';
import { HandoverSweeper } from './handover/handover-sweeper';
import { InboxStreamService } from './inbox/inbox-stream.service';
import { ConversationNotifier } from './stream/conversation-notifier';
import { StreamService } from './stream/stream.service';

// The widget's bundle comes from `npm run build`; the wiring needs none.
jest.mock('./static/widget-script.controller', () => ({ WidgetScriptController: class WidgetScriptController {} }));

/** Records when a lifecycle method of `type` starts, under `name`, and still runs it. */
function record(calls: string[], type: { prototype: object }, method: string, name: string): void {
  const original = (type.prototype as Record<string, (...args: unknown[]) => unknown>)[method] as (...args: unknown[]) => unknown;
  jest.spyOn(type.prototype as Record<string, (...args: unknown[]) => unknown>, method).mockImplementation(function (
    this: unknown,
    ...args
  ) {
    calls.push(name);
    return original.apply(this, args);
  });
}

describe('ChatModule', () => {
  let db: TestDatabase;
  let vhost: TestVhost;
  let app: INestApplicationContext;

  beforeAll(async () => {
    [db, vhost] = await Promise.all([createTestDatabase(), createTestVhost()]);
    const config = loadConfig(chatConfigSpec, { ALLOW_INSECURE_DEV_DEFAULTS: 'true', DATABASE_URL: db.url, RABBITMQ_URL: vhost.url });
    const { ChatModule } = await import('./chat.module');
    app = await NestFactory.createApplicationContext(ChatModule.forRoot(config, pino({ level: 'silent' })), {
      logger: false,
      abortOnError: false,
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await Promise.all([db.drop(), vhost.drop()]);
  });

  it('on shutdown ends the streams before the deliveries and the assistant drain, then closes the listener, the relay and the pool', async () => {
    const calls: string[] = [];
    record(calls, StreamService, 'beforeApplicationShutdown', 'visitor streams');
    record(calls, InboxStreamService, 'beforeApplicationShutdown', 'inbox streams');
    record(calls, HandoverSweeper, 'beforeApplicationShutdown', 'hand-over sweeper');
    record(calls, ChannelDeliveryWorker, 'beforeApplicationShutdown', 'delivery worker');
    record(calls, AssistantService, 'beforeApplicationShutdown', 'assistant');
    record(calls, ConversationNotifier, 'onApplicationShutdown', 'stream listener');
    record(calls, OutboxRelay, 'stop', 'relay');
    record(calls, DataSource, 'destroy', 'pool');
    await app.close();
    const at = (name: string) => calls.indexOf(name);
    expect(calls).toHaveLength(8);
    for (const streams of ['visitor streams', 'inbox streams']) {
      for (const worker of ['delivery worker', 'assistant']) expect(at(streams)).toBeLessThan(at(worker));
    }
    expect(calls.slice(5)).toEqual(['stream listener', 'relay', 'pool']);
  });
});
