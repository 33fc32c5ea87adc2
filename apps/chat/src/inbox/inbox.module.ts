import { Module } from '@nestjs/common';
import { componentLoggers } from '@svc/platform';
import { ChannelsModule } from '../channels/channels.module';
import { ChatClientsModule } from '../chat-clients.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { StreamModule } from '../stream/stream.module';
import { InboxStreamService } from './inbox-stream.service';
import { InboxController } from './inbox.controller';
import { InboxRepository } from './inbox.repository';
import { InboxService } from './inbox.service';

/** The team's inbox: conversations of the account, one conversation, replies, and the account's stream of changes. */
@Module({
  imports: [ConversationsModule, ChannelsModule, StreamModule, ChatClientsModule],
  controllers: [InboxController],
  providers: [...componentLoggers('inbox-streams'), InboxRepository, InboxService, InboxStreamService],
})
export class InboxModule {}
