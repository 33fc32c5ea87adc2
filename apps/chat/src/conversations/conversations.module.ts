import { Module } from '@nestjs/common';
import { ChatClientsModule } from '../chat-clients.module';
import { ChatEvents } from './chat-events';
import { ConversationsRepository } from './conversations.repository';
import { CustomersService } from './customers.service';

/** Conversations and their messages in PostgreSQL, their customers (contacts-api) and public events: what every feature builds on. */
@Module({
  imports: [ChatClientsModule],
  providers: [ConversationsRepository, ChatEvents, CustomersService],
  exports: [ConversationsRepository, ChatEvents, CustomersService],
})
export class ConversationsModule {}
