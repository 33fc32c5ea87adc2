import { Inject, Injectable } from '@nestjs/common';
import { GatewayContextGuard, InternalAuth } from '@svc/platform';

/** The chat's internal routes: only a context signed for the chat (audience `chat`) gets in. */
@Injectable()
export class InternalCallGuard extends GatewayContextGuard {
  constructor(@Inject(InternalAuth) auth: InternalAuth) {
    super(auth, 'chat');
  }
}
