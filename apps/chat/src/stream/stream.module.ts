import { FactoryProvider, Module } from '@nestjs/common';
import { componentLoggers, loggerToken } from '@svc/platform';
import type { Logger } from 'pino';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { StreamGauges } from '../chat-metrics';
import { ConversationsModule } from '../conversations/conversations.module';
import { ConversationNotifier } from './conversation-notifier';
import { StreamService } from './stream.service';
import { StreamSlots } from './stream-slots';

/** The LISTEN connection (a client of PostgreSQL of its own, closed after the listener drained). */
const notifier: FactoryProvider<ConversationNotifier> = {
  provide: ConversationNotifier,
  inject: [CHAT_CONFIG, loggerToken('streams')],
  useFactory: (config: ChatConfig, logger: Logger) => new ConversationNotifier(config.DATABASE_URL, logger),
};

/** The visitor's Server-Sent Events, woken by LISTEN/NOTIFY; ended first on shutdown (the widget resumes on another replica). */
@Module({
  imports: [ConversationsModule],
  providers: [...componentLoggers('streams'), notifier, StreamSlots, StreamService, StreamGauges],
  exports: [ConversationNotifier, StreamService],
})
export class StreamModule {}
