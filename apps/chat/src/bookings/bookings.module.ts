import { Module } from '@nestjs/common';
import { ChatClientsModule } from '../chat-clients.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { BookingsController } from './bookings.controller';
import { BookingsRepository } from './bookings.repository';
import { BookingsService } from './bookings.service';

/** Booking requests from the widget and the team's answers to them. */
@Module({
  imports: [ConversationsModule, ChatClientsModule],
  controllers: [BookingsController],
  providers: [BookingsRepository, BookingsService],
  exports: [BookingsService],
})
export class BookingsModule {}
