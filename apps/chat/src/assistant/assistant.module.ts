import { FactoryProvider, Module } from '@nestjs/common';
import { componentLoggers, loggerToken } from '@svc/platform';
import type { Logger } from 'pino';
import { ChatClientsModule } from '../chat-clients.module';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { LLM_CLIENT, REPLY_QUEUE } from '../chat.tokens';
import { ConversationsModule } from '../conversations/conversations.module';
import { AnswerWriter } from './answer-writer';
import { AssistantService } from './assistant.service';
import { LlmClient } from './llm.client';
import { PreviewController } from './preview.controller';

/** The OpenAI-compatible API the replies are written with, or null (LLM_BASE_URL empty: the extractive answer). */
const llmClient: FactoryProvider<LlmClient | null> = {
  provide: LLM_CLIENT,
  inject: [CHAT_CONFIG, loggerToken('llm')],
  useFactory: (config: ChatConfig, logger: Logger) =>
    config.LLM_BASE_URL
      ? new LlmClient(
          { baseUrl: config.LLM_BASE_URL, model: config.LLM_MODEL, apiKey: config.LLM_API_KEY, timeoutMs: config.LLM_TIMEOUT_MS },
          logger,
        )
      : null,
};

/** The assistant: answers customer messages from the account's knowledge; the team's preview of an answer. */
@Module({
  imports: [ConversationsModule, ChatClientsModule],
  controllers: [PreviewController],
  providers: [
    ...componentLoggers('assistant', 'llm'),
    llmClient,
    AnswerWriter,
    AssistantService,
    { provide: REPLY_QUEUE, useExisting: AssistantService },
  ],
  exports: [REPLY_QUEUE],
})
export class AssistantModule {}
