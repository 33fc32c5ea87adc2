import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CreatedWebhookDto, CreateWebhookDto, ErrorResponseDto, GatewayContext, WebhookListDto } from '@svc/contracts';
import { Caller } from '@svc/platform';
import { EndpointsService } from './endpoints.service';

const INVALID = 'The request has invalid fields.';

@ApiTags('Webhooks')
@ApiBearerAuth()
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly endpoints: EndpointsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint; the response carries its signing secret, shown only here.',
    description:
      'Events of the chosen kinds (every kind when `events` is omitted or null) are POSTed to `url`, signed with the returned secret (see "Receiving webhooks"). At most 10 endpoints per account. Receivers on private, loopback, link-local or reserved addresses are refused, also for names that resolve to them.',
  })
  @ApiCreatedResponse({ type: CreatedWebhookDto, description: 'Registered. Store `secret` now: it is never shown again.' })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: 'Invalid fields (`details` names each), or the account already has 10 endpoints, or the body is not JSON.',
    examples: {
      validation_failed: {
        summary: 'Not https, or a refused address',
        value: { error: { code: 'validation_failed', message: INVALID, details: [{ path: 'url', message: 'url must use https' }] } },
      },
      private_address: {
        summary: 'A name that resolves to a private address',
        value: {
          error: {
            code: 'validation_failed',
            message: INVALID,
            details: [{ path: 'url', message: 'url hooks.internal.example (10.0.4.7) is not a public address (private); receivers must be on the public internet' }],
          },
        },
      },
      unknown_kind: {
        summary: 'An unknown event kind',
        value: { error: { code: 'validation_failed', message: INVALID, details: [{ path: 'events', message: 'events may contain only contact.confirmed, consent.granted, …' }] } },
      },
      limit_exceeded: {
        summary: 'The 11th endpoint',
        value: { error: { code: 'limit_exceeded', message: 'An account may register at most 10 webhook endpoints; delete one first.' } },
      },
      invalid_json: { summary: 'The body is not JSON', value: { error: { code: 'invalid_json', message: 'The request body is not valid JSON.' } } },
    },
  })
  create(@Caller() caller: GatewayContext, @Body() dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.endpoints.create(caller.account.id, dto);
  }

  @Get()
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: 'The registered webhook endpoints, oldest first, without their secrets.',
    description: 'Every endpoint of the account with its url, the kinds it receives (`null`: every kind) and its status. Secrets are shown only when an endpoint is created.',
  })
  @ApiOkResponse({ type: WebhookListDto })
  list(@Caller() caller: GatewayContext): Promise<WebhookListDto> {
    return this.endpoints.list(caller.account.id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook endpoint; its pending deliveries are cancelled.',
    description: 'Nothing more is sent to the endpoint, retries included. The events stay in the feed (`GET /events`). 404 for an id of another account.',
  })
  @ApiParam({ name: 'id', description: 'The endpoint id from registration or the list.', schema: { type: 'integer', minimum: 1 }, example: 17 })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: 'No endpoint with this id in this account.',
    example: { error: { code: 'not_found', message: 'There is no webhook endpoint 17.' } },
  })
  delete(@Caller() caller: GatewayContext, @Param('id') id: string): Promise<void> {
    return this.endpoints.delete(caller.account.id, id);
  }
}
