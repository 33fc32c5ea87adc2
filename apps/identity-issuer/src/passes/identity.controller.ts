import { Controller, Param, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiCreatedResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ContactRefParams, ErrorResponseDto, GatewayContext, IdentityPassResponseDto } from '@svc/contracts';
import { Caller } from '@svc/platform';
import { IdentityService } from './identity.service';

@ApiTags('Same-browser pass')
@ApiBearerAuth()
@Controller('contacts')
export class IdentityController {
  constructor(private readonly identity: IdentityService) {}

  @Post(':ref/identity')
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
    example: {
      error: {
        code: 'validation_failed',
        message: 'The request has invalid fields.',
        details: [{ path: 'ref', message: 'ref must be 1 to 255 characters' }],
      },
    },
  })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: 'The account has no customer with this ref.',
    example: { error: { code: 'not_found', message: 'There is no customer with ref "cust-1042".' } },
  })
  issue(@Caller() caller: GatewayContext, @Param() { ref }: ContactRefParams): Promise<IdentityPassResponseDto> {
    return this.identity.issue(caller, ref);
  }
}
