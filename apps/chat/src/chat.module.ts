import { DynamicModule, Module } from '@nestjs/common';
import { ContactsClient, IdentityClient, KnowledgeClient, WidgetsClient } from '@svc/internal-clients';
import { serviceStack } from '@svc/messaging';
import { repositoryProviders } from '@svc/persistence';
import { APP_LOGGER, closedOnShutdown, InternalAuth, MetricsService } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ActivityConsumer } from './analytics/activity.consumer';
import { AnalyticsController } from './analytics/analytics.controller';
import { AnalyticsRepository } from './analytics/analytics.repository';
import { AnalyticsService } from './analytics/analytics.service';
import { AnswerWriter } from './assistant/answer-writer';
import { AssistantService } from './assistant/assistant.service';
import { LlmClient } from './assistant/llm.client';
import { PreviewController } from './assistant/preview.controller';
import { BookingsController } from './bookings/bookings.controller';
import { BookingsRepository } from './bookings/bookings.repository';
import { BookingsService } from './bookings/bookings.service';
import { ChannelsInternalController, PhoneCodeController } from './channels/channels.controller';
import { ChannelsRepository } from './channels/channels.repository';
import { EmailConfirmationController } from './channels/email-confirmation.controller';
import { EmailConfirmationService } from './channels/email-confirmation.service';
import { DeliveriesRepository } from './channels/deliveries.repository';
import { DeliveryWorker } from './channels/delivery-worker';
import { CloudApiProvider, EmailSender } from './channels/senders';
import { WhatsappService } from './channels/whatsapp.service';
import { WhatsappSecrets, WhatsappWebhookController } from './channels/whatsapp-webhook.controller';
import { ChatConfig, parseDuration } from './chat.config';
import { chatMetrics } from './chat-metrics';
import { ChatEvents } from './conversations/chat-events';
import { ConversationService } from './conversations/conversation.service';
import { ConversationsRepository } from './conversations/conversations.repository';
import { CustomersService } from './conversations/customers.service';
import { SessionsService } from './conversations/sessions.service';
import { ErasureConsumer } from './erasure/erasure.consumer';
import { ErasureService } from './erasure/erasure.service';
import { HandoverSweeper } from './handover/handover-sweeper';
import { InboxStreamService } from './inbox/inbox-stream.service';
import { InboxController } from './inbox/inbox.controller';
import { InboxRepository } from './inbox/inbox.repository';
import { InboxService } from './inbox/inbox.service';
import { CHAT_MIGRATIONS, CHAT_SCHEMA } from './migrations';
import { WidgetSettingsController } from './settings/widget-settings.controller';
import { WidgetSettingsRepository } from './settings/widget-settings.repository';
import { ConversationNotifier } from './stream/conversation-notifier';
import { DemoController } from './static/demo.controller';
import { DemoShop } from './static/demo-shop';
import { WidgetScriptController } from './static/widget-script.controller';
import { StreamService, STREAMS_PER_TOKEN } from './stream/stream.service';
import { OriginPolicy } from './visitor/origin-policy';
import { NewConversationThrottle } from './visitor/new-conversation-throttle';
import { VisitorController } from './visitor/visitor.controller';
import { VisitorGuard } from './visitor/visitor.guard';
import { VisitorLimits } from './visitor/visitor-limits';
import { WidgetAccounts } from './visitor/widget-accounts';

/** How often a replica looks for conversations whose wait for a person ran out: a tenth of the wait, between 0.5 and 5 s. */
export function handoverSweepIntervalMs(waitMs: number): number {
  return Math.min(5_000, Math.max(500, Math.floor(waitMs / 10)));
}

@Module({})
export class ChatModule {
  static forRoot(config: ChatConfig, logger: Logger): DynamicModule {
    const client = <T>(Client: new (options: ConstructorParameters<typeof ContactsClient>[0]) => T, url: string) => ({
      provide: Client,
      inject: [InternalAuth],
      useFactory: (auth: InternalAuth) => new Client({ url, auth, timeoutMs: config.INTERNAL_TIMEOUT_MS, logger }),
    });
    const handoverWaitMs = parseDuration(config.HANDOVER_WAIT);
    const llm = config.LLM_BASE_URL
      ? new LlmClient(
          { baseUrl: config.LLM_BASE_URL, model: config.LLM_MODEL, apiKey: config.LLM_API_KEY, timeoutMs: config.LLM_TIMEOUT_MS },
          logger.child({ component: 'llm' }),
        )
      : null;
    return {
      module: ChatModule,
      imports: serviceStack('chat', { config, logger, schema: CHAT_SCHEMA, migrations: CHAT_MIGRATIONS }),
      controllers: [
        VisitorController,
        WidgetSettingsController,
        InboxController,
        PreviewController,
        BookingsController,
        AnalyticsController,
        ActivityConsumer,
        ErasureConsumer,
        WidgetScriptController,
        DemoController,
        WhatsappWebhookController,
        ChannelsInternalController,
        PhoneCodeController,
        EmailConfirmationController,
      ],
      providers: [
        client(ContactsClient, config.CONTACTS_API_URL),
        client(IdentityClient, config.IDENTITY_ISSUER_URL),
        client(KnowledgeClient, config.KNOWLEDGE_API_URL),
        client(WidgetsClient, config.GATEWAY_URL),
        closedOnShutdown(ContactsClient, IdentityClient, KnowledgeClient, WidgetsClient),
        { provide: DemoShop, useValue: new DemoShop(config.GATEWAY_URL, config.CHAT_DEMO_KEY) },
        VisitorGuard,
        { provide: VisitorLimits, inject: [DataSource], useFactory: (db: DataSource) => new VisitorLimits(db) },
        ...repositoryProviders(
          ConversationsRepository,
          WidgetSettingsRepository,
          InboxRepository,
          BookingsRepository,
          AnalyticsRepository,
          DeliveriesRepository,
        ),
        { provide: ChatEvents, useValue: new ChatEvents(config.APP_URL) },
        { provide: WidgetAccounts, inject: [WidgetsClient], useFactory: (widgets: WidgetsClient) => new WidgetAccounts(widgets) },
        {
          provide: OriginPolicy,
          inject: [WidgetSettingsRepository],
          useFactory: (settings: WidgetSettingsRepository) => new OriginPolicy(settings, config.APP_URL),
        },
        {
          provide: CustomersService,
          inject: [ContactsClient, ConversationsRepository],
          useFactory: (contacts: ContactsClient, conversations: ConversationsRepository) => new CustomersService(contacts, conversations),
        },
        {
          provide: SessionsService,
          inject: [ConversationsRepository, WidgetAccounts, OriginPolicy, IdentityClient],
          useFactory: (conversations: ConversationsRepository, widgets: WidgetAccounts, origins: OriginPolicy, identity: IdentityClient) =>
            new SessionsService(
              conversations,
              widgets,
              origins,
              identity,
              new NewConversationThrottle(config.VISITOR_CONVERSATIONS_PER_ADDRESS, config.VISITOR_CONVERSATION_WINDOW_MS),
            ),
        },
        {
          provide: AnswerWriter,
          inject: [KnowledgeClient],
          useFactory: (knowledge: KnowledgeClient) => new AnswerWriter(knowledge, llm, config.ASSISTANT_SEARCH_CONCURRENCY),
        },
        {
          provide: AssistantService,
          inject: [ConversationsRepository, CustomersService, AnswerWriter, ChatEvents, MetricsService, DataSource, StreamService],
          useFactory: (
            conversations: ConversationsRepository,
            customers: CustomersService,
            writer: AnswerWriter,
            events: ChatEvents,
            metrics: MetricsService,
            db: DataSource,
            streams: StreamService,
          ) =>
            new AssistantService(
              conversations,
              customers,
              writer,
              events,
              logger.child({ component: 'assistant' }),
              chatMetrics(metrics, db, streams),
            ),
        },
        {
          provide: ConversationService,
          inject: [ConversationsRepository, CustomersService, ContactsClient, ChatEvents, AssistantService, EmailConfirmationService],
          useFactory: (
            conversations: ConversationsRepository,
            customers: CustomersService,
            contacts: ContactsClient,
            events: ChatEvents,
            assistant: AssistantService,
            emails: EmailConfirmationService,
          ) =>
            new ConversationService(
              conversations,
              customers,
              contacts,
              events,
              assistant,
              handoverWaitMs,
              config.VISITOR_MESSAGES_PER_MINUTE,
              emails,
            ),
        },
        {
          provide: HandoverSweeper,
          inject: [ConversationsRepository],
          useFactory: (conversations: ConversationsRepository) =>
            new HandoverSweeper(conversations, handoverSweepIntervalMs(handoverWaitMs), logger.child({ component: 'handover' })),
        },
        {
          provide: ConversationNotifier,
          useFactory: () => new ConversationNotifier(config.DATABASE_URL, logger.child({ component: 'streams' })),
        },
        {
          provide: StreamService,
          inject: [ConversationsRepository, ConversationNotifier, APP_LOGGER],
          useFactory: (conversations: ConversationsRepository, notifier: ConversationNotifier, root: Logger) =>
            new StreamService(conversations, notifier, root.child({ component: 'streams' }), {
              perToken: STREAMS_PER_TOKEN,
              perAddress: config.VISITOR_STREAMS_PER_ADDRESS,
              perProcess: config.CHAT_MAX_STREAMS,
            }),
        },
        {
          provide: InboxService,
          inject: [InboxRepository, ConversationsRepository, CustomersService, ContactsClient, ChatEvents, WhatsappService],
          useFactory: (
            inbox: InboxRepository,
            conversations: ConversationsRepository,
            customers: CustomersService,
            contacts: ContactsClient,
            events: ChatEvents,
            whatsapp: WhatsappService,
          ) => new InboxService(inbox, conversations, customers, contacts, events, whatsapp),
        },
        {
          provide: InboxStreamService,
          inject: [InboxRepository, ConversationNotifier, APP_LOGGER],
          useFactory: (inbox: InboxRepository, notifier: ConversationNotifier, root: Logger) =>
            new InboxStreamService(inbox, notifier, root.child({ component: 'inbox-streams' })),
        },
        {
          provide: BookingsService,
          inject: [BookingsRepository, ConversationsRepository, ContactsClient],
          useFactory: (bookings: BookingsRepository, conversations: ConversationsRepository, contacts: ContactsClient) =>
            new BookingsService(bookings, conversations, contacts),
        },
        {
          provide: AnalyticsService,
          inject: [AnalyticsRepository],
          useFactory: (analytics: AnalyticsRepository) => new AnalyticsService(analytics),
        },
        { provide: WhatsappSecrets, useValue: new WhatsappSecrets(config.WHATSAPP_APP_SECRET, config.WHATSAPP_VERIFY_TOKEN) },
        {
          provide: ChannelsRepository,
          inject: [DataSource, ConversationsRepository],
          useFactory: (db: DataSource, conversations: ConversationsRepository) => new ChannelsRepository(db, conversations),
        },
        {
          provide: EmailSender,
          useFactory: () => new EmailSender(config.SMTP_URL, config.EMAIL_FROM, logger.child({ component: 'email' })),
        },
        {
          provide: DeliveryWorker,
          inject: [DeliveriesRepository, EmailSender],
          useFactory: (deliveries: DeliveriesRepository, email: EmailSender) =>
            new DeliveryWorker(
              deliveries,
              new CloudApiProvider(config.WHATSAPP_API_URL, config.WHATSAPP_ACCESS_TOKEN, config.INTERNAL_TIMEOUT_MS),
              email,
              1_000,
              config.DELIVERY_RETRY_BASE_MS,
              logger.child({ component: 'deliveries' }),
            ),
        },
        {
          provide: WhatsappService,
          inject: [ChannelsRepository, ConversationsRepository, CustomersService, ContactsClient, ChatEvents, AssistantService],
          useFactory: (
            channels: ChannelsRepository,
            conversations: ConversationsRepository,
            customers: CustomersService,
            contacts: ContactsClient,
            events: ChatEvents,
            assistant: AssistantService,
          ) =>
            new WhatsappService(channels, conversations, customers, contacts, events, assistant, logger.child({ component: 'whatsapp' })),
        },
        {
          provide: EmailConfirmationService,
          inject: [ChannelsRepository, ConversationsRepository, ContactsClient, ChatEvents],
          useFactory: (
            channels: ChannelsRepository,
            conversations: ConversationsRepository,
            contacts: ContactsClient,
            events: ChatEvents,
          ) =>
            new EmailConfirmationService(channels, conversations, contacts, events, config.APP_URL, logger.child({ component: 'email' })),
        },
        {
          provide: ErasureService,
          inject: [ConversationsRepository],
          useFactory: (conversations: ConversationsRepository) => new ErasureService(conversations),
        },
      ],
    };
  }
}
