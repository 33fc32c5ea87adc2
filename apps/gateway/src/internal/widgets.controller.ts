import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AccountsRepository } from '@svc/accounts';
import { WIDGET_ID, WidgetAccountResponse } from '@svc/contracts';
import { ApiError, GatewayContextGuard, InternalCallers } from '@svc/platform';

/**
 * `GET /internal/widgets/:widget` for the chat (not under /api/v1, not in the OpenAPI document,
 * not routed by the Ingress): the account a public widget id belongs to. The gateway owns accounts;
 * the chat asks here instead of reading schema `gateway`. Needs a context the chat signed (another
 * app's: 403); the account named in it is not used.
 */
@ApiExcludeController()
@Controller('internal/widgets')
@UseGuards(GatewayContextGuard)
@InternalCallers('chat')
export class WidgetsController {
  constructor(private readonly accounts: AccountsRepository) {}

  @Get(':widget')
  async account(@Param('widget') widget: string): Promise<WidgetAccountResponse> {
    const account = WIDGET_ID.test(widget) ? await this.accounts.findAccountByWidget(widget) : undefined;
    if (!account) throw new ApiError('not_found', 'There is no widget with this id.');
    return { account };
  }
}
