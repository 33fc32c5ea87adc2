import { applyDecorators, Controller, Injectable, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContextGuard, InternalCaller, InternalCallers } from '@svc/platform';

/** The chat's internal routes: only a context signed for the chat (audience `chat`) by a caller the route names gets in. */
@Injectable()
export class InternalCallGuard extends GatewayContextGuard {}

/**
 * A controller of the chat's internal routes (`INTERNAL_ROUTES.chat`): not in the public API, calls
 * signed by `callers` only (a route may name its own with `@InternalCallers`).
 */
export function InternalChatController(...callers: InternalCaller[]): ClassDecorator {
  return applyDecorators(ApiExcludeController(), Controller(), InternalCallers(...callers), UseGuards(InternalCallGuard));
}
