import { DynamicModule, Module } from '@nestjs/common';
import { serviceStack } from '@svc/messaging';
import type { Logger } from 'pino';
import { AnalyticsModule } from './analytics/analytics.module';
import { AssistantModule } from './assistant/assistant.module';
import { BookingsModule } from './bookings/bookings.module';
import { ChannelsModule } from './channels/channels.module';
import { CHAT_CONFIG, ChatConfig } from './chat.config';
import { ConversationsModule } from './conversations/conversations.module';
import { ErasureModule } from './erasure/erasure.module';
import { HandoverModule } from './handover/handover.module';
import { InboxModule } from './inbox/inbox.module';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from './migrations';
import { SettingsModule } from './settings/settings.module';
import { StaticModule } from './static/static.module';
import { StreamModule } from './stream/stream.module';
import { VisitorModule } from './visitor/visitor.module';

/**
 * The chat's features. On shutdown Nest stops the modules nearest this one first (ties: the last
 * listed first), checked by chat.module.integration-spec: the inbox streams end, the hand-over
 * sweeper stops, the visitor streams end (StreamModule after ChannelsModule), the deliveries and
 * the assistant drain, the clients close, and last the stack's relay and pools.
 */
const FEATURES = [
  ConversationsModule,
  SettingsModule,
  AssistantModule,
  ChannelsModule,
  StreamModule,
  BookingsModule,
  HandoverModule,
  VisitorModule,
  InboxModule,
  AnalyticsModule,
  ErasureModule,
  StaticModule,
];

/** chat: the widget's API and stream, the assistant, WhatsApp and email, the team's inbox, bookings and figures. */
@Module({ imports: FEATURES })
export class ChatModule {
  /** With its stack: the platform, schema `chat` (migrated at start), RabbitMQ with the outbox relay. */
  static forRoot(config: ChatConfig, logger: Logger): DynamicModule {
    return {
      module: ChatModule,
      global: true, // CHAT_CONFIG, for every feature module
      imports: serviceStack('chat', { config, logger, schema: CHAT_SCHEMA, migrations: CHAT_MIGRATIONS }),
      providers: [{ provide: CHAT_CONFIG, useValue: config }],
      exports: [CHAT_CONFIG],
    };
  }
}
