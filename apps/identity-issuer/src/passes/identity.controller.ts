import { Param } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOperation } from '@nestjs/swagger';
import {
  API_ROUTES,
  ContactRefParams,
  errorExample,
  ErrorResponseDto,
  GatewayContext,
  IdentityPassResponseDto,
  invalidFieldsExample,
} from '@svc/contracts';
import { Caller, InternalCallers, PublicApiController, Route } from '@svc/platform';
import { IdentityService } from './identity.service';

@PublicApiController('Same-browser pass')
@InternalCallers('gateway', 'mcp-server')
export class IdentityController {
  constructor(private readonly identity: IdentityService) {}

  @Route(API_ROUTES.identity.issue)
  @ApiOperation({
    operationId: 'createIdentityPass',
    summary: 'A same-browser pass for a customer, to place on that visitor’s page.',
    description:
      'Returns a signed token that identifies the customer to the chat for 30 days. Render it server-side into the page of that visitor only, before the chat script loads: `window.SvcChat = { identity: token }`, with `Cache-Control: private, no-store`. No request body. Each call issues a new pass; it counts as a write. A pass of a customer erased since identifies nobody.',
  })
  @ApiCreatedResponse({ type: IdentityPassResponseDto, description: 'The pass.' })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: 'The ref in the path is too long or has control characters.',
    example: invalidFieldsExample({ path: 'ref', message: 'ref must be 1 to 255 characters' }),
  })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: 'The account has no customer with this ref.',
    example: errorExample('not_found', 'There is no customer with ref "cust-1042".'),
  })
  issue(@Caller() caller: GatewayContext, @Param() { ref }: ContactRefParams): Promise<IdentityPassResponseDto> {
    return this.identity.issue(caller, ref);
  }
}
