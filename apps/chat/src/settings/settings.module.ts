import { Module } from '@nestjs/common';
import { OriginPolicy } from '../visitor/origin-policy';
import { WidgetSettingsController } from './widget-settings.controller';
import { WidgetSettingsRepository } from './widget-settings.repository';

/** An account's widget settings (the team's internal route) and the origins allowed to embed its widget. */
@Module({
  controllers: [WidgetSettingsController],
  providers: [WidgetSettingsRepository, OriginPolicy],
  exports: [OriginPolicy],
})
export class SettingsModule {}
