import { Body } from '@nestjs/common';
import { GatewayContext, INTERNAL_ROUTES, WidgetOriginsDto, WidgetSettingsResponse } from '@svc/contracts';
import { Caller, InternalCallers, Route } from '@svc/platform';
import { OriginPolicy } from '../visitor/origin-policy';
import { InternalChatController } from './internal-call.guard';
import { WidgetSettingsRepository } from './widget-settings.repository';

/**
 * For the admin command line and the console, not routed by the gateway: an account's widget
 * settings, with a context signed by the console (reads and writes) or the admin command line (writes) naming the account.
 */
@InternalChatController()
export class WidgetSettingsController {
  constructor(
    private readonly settings: WidgetSettingsRepository,
    private readonly origins: OriginPolicy,
  ) {}

  /** The allowed origins (empty: any page may embed the widget). */
  @Route(INTERNAL_ROUTES.chat.widgetSettings)
  @InternalCallers('console')
  async getOrigins(@Caller() caller: GatewayContext): Promise<WidgetSettingsResponse> {
    return { account_id: caller.account.id, allowed_origins: await this.settings.allowedOrigins(caller.account.id) };
  }

  /** Replaces the allowed origins (an empty list: any page may embed the widget). */
  @Route(INTERNAL_ROUTES.chat.setWidgetSettings)
  @InternalCallers('console', 'admin')
  async setOrigins(@Caller() caller: GatewayContext, @Body() body: WidgetOriginsDto): Promise<WidgetSettingsResponse> {
    const origins = [...new Set(body.origins.map((origin) => new URL(origin).origin))];
    const allowed = await this.settings.setAllowedOrigins(caller.account.id, origins);
    this.origins.forget(caller.account.id);
    return { account_id: caller.account.id, allowed_origins: allowed };
  }
}
