import { Module } from '@nestjs/common';
import { componentLoggers } from '@svc/platform';
import { CHAT_CONFIG, ChatConfig, handoverSweepIntervalMs, parseDuration } from '../chat.config';
import { HANDOVER_SWEEP_INTERVAL_MS } from '../chat.tokens';
import { ConversationsModule } from '../conversations/conversations.module';
import { HandoverSweeper } from './handover-sweeper';

/** The end of a customer's wait for a person (HANDOVER_WAIT): the widget then asks how to reach them. */
@Module({
  imports: [ConversationsModule],
  providers: [
    ...componentLoggers('handover'),
    {
      provide: HANDOVER_SWEEP_INTERVAL_MS,
      inject: [CHAT_CONFIG],
      useFactory: (config: ChatConfig) => handoverSweepIntervalMs(parseDuration(config.HANDOVER_WAIT)),
    },
    HandoverSweeper,
  ],
})
export class HandoverModule {}
