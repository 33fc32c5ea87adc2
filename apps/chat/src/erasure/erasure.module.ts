import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { ErasureConsumer } from './erasure.consumer';
import { ErasureService } from './erasure.service';

/** A customer's erasure (contacts-api's event): their personal data leaves the conversations. */
@Module({
  imports: [ConversationsModule],
  controllers: [ErasureConsumer],
  providers: [ErasureService],
})
export class ErasureModule {}
