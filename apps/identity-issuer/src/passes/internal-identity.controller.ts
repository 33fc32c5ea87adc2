import { Body, Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContext, VerifyIdentityPassDto, VerifyIdentityPassResponse } from '@svc/contracts';
import { Caller, InternalCallers, Public } from '@svc/platform';
import { KeyRing } from '../keys/key-ring';
import { PublicJwk } from '../keys/signing-keys';
import { IdentityService } from './identity.service';

/**
 * For the chat, not the public API. `verify` needs a context the chat signed (`@InternalCallers`); the JWKS holds public keys only and
 * is open, so the chat (or anything else) can verify passes itself.
 */
@ApiExcludeController()
@Controller('internal/identity')
@InternalCallers('chat')
export class InternalIdentityController {
  constructor(
    private readonly identity: IdentityService,
    private readonly keys: KeyRing,
  ) {}

  @Post('verify')
  @HttpCode(200)
  verify(@Caller() caller: GatewayContext, @Body() body: VerifyIdentityPassDto): Promise<VerifyIdentityPassResponse> {
    return this.identity.verify(caller, body.token, body.account_id);
  }

  @Public()
  @Get('jwks.json')
  @Header('cache-control', 'public, max-age=300')
  jwks(): { readonly keys: readonly PublicJwk[] } {
    return this.keys.jwks();
  }
}
