import { applyDecorators, Controller, Inject, Injectable, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContextGuard, InternalAuth } from '@svc/platform';

/** The chat's internal routes: only a context signed for the chat (audience `chat`) gets in. */
@Injectable()
export class InternalCallGuard extends GatewayContextGuard {
  constructor(@Inject(InternalAuth) auth: InternalAuth) {
    super(auth, 'chat');
  }
}

/** A controller of the chat's internal routes (`INTERNAL_ROUTES.chat`): not in the public API, signed calls only. */
export function InternalChatController(): ClassDecorator {
  return applyDecorators(ApiExcludeController(), Controller(), UseGuards(InternalCallGuard));
}
