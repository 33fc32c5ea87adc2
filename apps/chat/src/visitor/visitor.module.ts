import { Module } from '@nestjs/common';
import { AssistantModule } from '../assistant/assistant.module';
import { BookingsModule } from '../bookings/bookings.module';
import { PhoneCodeController } from '../channels/channels.controller';
import { ChannelsModule } from '../channels/channels.module';
import { ChatClientsModule } from '../chat-clients.module';
import { ConversationService } from '../conversations/conversation.service';
import { ConversationsModule } from '../conversations/conversations.module';
import { SessionsService } from '../conversations/sessions.service';
import { SettingsModule } from '../settings/settings.module';
import { StreamModule } from '../stream/stream.module';
import { NewConversationThrottle } from './new-conversation-throttle';
import { VisitorController } from './visitor.controller';
import { VisitorLimits } from './visitor-limits';
import { WidgetAccounts } from './widget-accounts';

/** The widget's API (`/chat/v1`): sessions, a visitor's messages and requests, the stream of their conversation. */
@Module({
  imports: [ConversationsModule, SettingsModule, StreamModule, AssistantModule, ChannelsModule, BookingsModule, ChatClientsModule],
  controllers: [VisitorController, PhoneCodeController],
  providers: [WidgetAccounts, NewConversationThrottle, SessionsService, ConversationService, VisitorLimits],
})
export class VisitorModule {}
