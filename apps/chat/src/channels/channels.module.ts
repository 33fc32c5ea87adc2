import { FactoryProvider, Module } from '@nestjs/common';
import { componentLoggers, loggerToken } from '@svc/platform';
import type { Logger } from 'pino';
import { AssistantModule } from '../assistant/assistant.module';
import { ChatClientsModule } from '../chat-clients.module';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { DELIVERY_INTERVAL_MS, DELIVERY_RETRY_BASE_MS, EMAIL_LINKS, WHATSAPP_PROVIDER } from '../chat.tokens';
import { ConversationsModule } from '../conversations/conversations.module';
import { ChannelsInternalController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelDeliveriesRepository } from './channel-deliveries.repository';
import { ChannelDeliveryWorker } from './channel-delivery-worker';
import { EmailConfirmationController } from './email-confirmation.controller';
import { EmailConfirmationService } from './email-confirmation.service';
import { CloudApiProvider, EmailSender } from './senders';
import { WhatsappSecrets, WhatsappWebhookController } from './whatsapp-webhook.controller';
import { WhatsappService } from './whatsapp.service';

/** The SMTP server confirmation emails go to. */
const emailSender: FactoryProvider<EmailSender> = {
  provide: EmailSender,
  inject: [CHAT_CONFIG, loggerToken('email')],
  useFactory: (config: ChatConfig, logger: Logger) => new EmailSender(config.SMTP_URL, config.EMAIL_FROM, logger),
};

/** The WhatsApp Business Cloud API messages are sent to. */
const whatsappProvider: FactoryProvider<CloudApiProvider> = {
  provide: WHATSAPP_PROVIDER,
  inject: [CHAT_CONFIG],
  useFactory: (config: ChatConfig) =>
    new CloudApiProvider(config.WHATSAPP_API_URL, config.WHATSAPP_ACCESS_TOKEN, config.INTERNAL_TIMEOUT_MS),
};

/** WhatsApp (inbound webhooks, sends, phone codes) and email confirmations, sent by the delivery worker. */
@Module({
  imports: [ConversationsModule, AssistantModule, ChatClientsModule],
  controllers: [WhatsappWebhookController, ChannelsInternalController, EmailConfirmationController],
  providers: [
    ...componentLoggers('whatsapp', 'email', 'deliveries'),
    emailSender,
    whatsappProvider,
    { provide: DELIVERY_INTERVAL_MS, useValue: 1_000 },
    { provide: DELIVERY_RETRY_BASE_MS, inject: [CHAT_CONFIG], useFactory: (config: ChatConfig) => config.DELIVERY_RETRY_BASE_MS },
    ChannelsRepository,
    ChannelDeliveriesRepository,
    ChannelDeliveryWorker,
    WhatsappService,
    WhatsappSecrets,
    EmailConfirmationService,
    { provide: EMAIL_LINKS, useExisting: EmailConfirmationService },
  ],
  exports: [WhatsappService, EMAIL_LINKS],
})
export class ChannelsModule {}
