import { Module } from '@nestjs/common';
import { ChatClientsModule } from '../chat-clients.module';
import { ChatEvents } from './chat-events';
import { ConversationsRepository } from './conversations.repository';
import { CustomerChangesController } from './customer-changes.controller';
import { CustomersConsumer } from './customers.consumer';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';

/**
 * Conversations and their messages in PostgreSQL, their customers (the chat's model of contacts-api's,
 * fed by its events) and public events: what every feature builds on.
 */
@Module({
  imports: [ChatClientsModule],
  controllers: [CustomersConsumer, CustomerChangesController],
  providers: [ConversationsRepository, CustomersRepository, ChatEvents, CustomersService],
  exports: [ConversationsRepository, CustomersRepository, ChatEvents, CustomersService],
})
export class ConversationsModule {}
