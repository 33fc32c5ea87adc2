import { Module } from '@nestjs/common';
import { ActivityConsumer } from './activity.consumer';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsService } from './analytics.service';

/** The account's figures, and contacts-api's confirmations and consent changes recorded for them (a RabbitMQ consumer). */
@Module({
  controllers: [AnalyticsController, ActivityConsumer],
  providers: [AnalyticsRepository, AnalyticsService],
})
export class AnalyticsModule {}
