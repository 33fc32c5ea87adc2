import { Body, HttpCode, Param, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import {
  API_ROUTES,
  CreatedWebhookDto,
  CreateWebhookDto,
  DeliveriesQueryDto,
  DeliveryDto,
  DeliveryListDto,
  ErrorResponseDto,
  GatewayContext,
  INVALID_JSON_EXAMPLE,
  invalidFieldsExample,
  RecoveredDto,
  RecoverWebhookDto,
  RotatedSecretDto,
  TestDeliveryDto,
  TestWebhookDto,
  UpdateWebhookDto,
  WebhookEndpointDto,
  WebhookListDto,
} from '@svc/contracts';
import { ApiInvalidQueryResponse, Caller, InternalCallers, NoContent, PublicApiController, Route } from '@svc/platform';
import { EndpointsService } from './endpoints.service';

const ID_PARAM = {
  name: 'id',
  description: 'The endpoint id from registration or the list.',
  schema: { type: 'integer' as const, minimum: 1 },
  example: 17,
};
const NOT_FOUND = {
  type: ErrorResponseDto,
  description: 'No endpoint with this id in this account.',
  example: { error: { code: 'not_found', message: 'There is no webhook endpoint 17.' } },
};
const DISABLED = {
  type: ErrorResponseDto,
  description: 'The endpoint is disabled: enable it first.',
  example: { error: { code: 'conflict', message: 'Webhook endpoint 17 is disabled; enable it first (PATCH with "status": "enabled").' } },
};

@PublicApiController('Webhooks')
@InternalCallers('gateway', 'console')
export class WebhooksController {
  constructor(private readonly endpoints: EndpointsService) {}

  @Route(API_ROUTES.webhooks.create)
  @InternalCallers('gateway', 'console', 'mcp-server')
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
        value: invalidFieldsExample({ path: 'url', message: 'url must use https' }),
      },
      private_address: {
        summary: 'A name that resolves to a private address',
        value: invalidFieldsExample({
          path: 'url',
          message: 'url hooks.internal.example (10.0.4.7) is not a public address (private); receivers must be on the public internet',
        }),
      },
      unknown_kind: {
        summary: 'An unknown event kind',
        value: invalidFieldsExample({ path: 'events', message: 'events may contain only contact.confirmed, consent.granted, …' }),
      },
      limit_exceeded: {
        summary: 'The 11th endpoint',
        value: { error: { code: 'limit_exceeded', message: 'An account may register at most 10 webhook endpoints; delete one first.' } },
      },
      invalid_json: {
        summary: 'The body is not JSON',
        value: INVALID_JSON_EXAMPLE,
      },
    },
  })
  create(@Caller() caller: GatewayContext, @Body() dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.endpoints.create(caller.account.id, dto);
  }

  @Route(API_ROUTES.webhooks.list)
  @InternalCallers('gateway', 'console', 'mcp-server')
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: 'The registered webhook endpoints, oldest first, without their secrets.',
    description:
      'Every endpoint of the account with its url, the kinds it receives (`null`: every kind) and its status. Secrets are shown only when an endpoint is created.',
  })
  @ApiOkResponse({ type: WebhookListDto })
  list(@Caller() caller: GatewayContext): Promise<WebhookListDto> {
    return this.endpoints.list(caller.account.id);
  }

  @Route(API_ROUTES.webhooks.get)
  @ApiOperation({
    operationId: 'getWebhook',
    summary: 'One webhook endpoint, without its secret.',
    description:
      'Its address, kinds and status (`disabled_reason` says why an endpoint is disabled: `failing` when the service turned it off, `manual` when you did). 404 for an id of another account.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiNotFoundResponse(NOT_FOUND)
  get(@Caller() caller: GatewayContext, @Param('id') id: string): Promise<WebhookEndpointDto> {
    return this.endpoints.get(caller.account.id, id);
  }

  @Route(API_ROUTES.webhooks.update)
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Change the address, the kinds or the status of an endpoint; fields left out keep their value.',
    description:
      'A new `url` follows the registration rules (https, public addresses only). `status: "disabled"` stops attempts: deliveries due meanwhile are recorded as `failed` (the events stay in the feed) and `POST /webhooks/{id}/recover` sends them once it is enabled again. `status: "enabled"` also turns on an endpoint the service disabled because it was failing.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid fields (`details` names each), as at registration.' })
  @ApiNotFoundResponse(NOT_FOUND)
  update(@Caller() caller: GatewayContext, @Param('id') id: string, @Body() dto: UpdateWebhookDto): Promise<WebhookEndpointDto> {
    return this.endpoints.update(caller.account.id, id, dto);
  }

  @Route(API_ROUTES.webhooks.rotateSecret)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Make a new signing secret, shown only in this response; the previous one keeps signing for 24 hours.',
    description:
      'Until `previous_expires_at`, every delivery carries `X-SVC-Signature` signed with the previous secret (unchanged for receivers that still hold it) and `X-SVC-Signature-Next` signed with the new one; afterwards `X-SVC-Signature` is signed with the new secret alone. Rotating again during the overlap drops the oldest secret at once. See "Receiving webhooks".',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: RotatedSecretDto })
  @ApiNotFoundResponse(NOT_FOUND)
  rotateSecret(@Caller() caller: GatewayContext, @Param('id') id: string): Promise<RotatedSecretDto> {
    return this.endpoints.rotateSecret(caller.account.id, id);
  }

  @Route(API_ROUTES.webhooks.deliveries)
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "The endpoint's deliveries with every attempt, oldest first.",
    description:
      'Pass `next_after` as `after` while `more` is true. Attempts show when, the status (or null without an answer), why it failed and how long it took, never your response.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: DeliveryListDto })
  @ApiInvalidQueryResponse('`after`, `limit` or `status` is out of range.', {
    path: 'limit',
    message: 'limit must be a whole number from 1 to 200',
  })
  @ApiNotFoundResponse(NOT_FOUND)
  deliveries(@Caller() caller: GatewayContext, @Param('id') id: string, @Query() query: DeliveriesQueryDto): Promise<DeliveryListDto> {
    return this.endpoints.deliveriesOf(caller.account.id, id, query);
  }

  @Route(API_ROUTES.webhooks.resend)
  @HttpCode(202)
  @ApiOperation({
    operationId: 'resendWebhookDelivery',
    summary: 'Attempt a delivery once more, now: same event id and body, a fresh timestamp and signature.',
    description:
      'A finished delivery (`delivered` or `failed`) gets one attempt; a pending one is attempted now and keeps its remaining retries.',
  })
  @ApiParam(ID_PARAM)
  @ApiParam({
    name: 'deliveryId',
    description: 'A delivery id from the deliveries list.',
    schema: { type: 'integer', minimum: 1 },
    example: 5521,
  })
  @ApiAcceptedResponse({ type: DeliveryDto, description: 'Queued: the delivery, now `pending`.' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No such endpoint in this account, or no such delivery of it.' })
  @ApiConflictResponse(DISABLED)
  resend(@Caller() caller: GatewayContext, @Param('id') id: string, @Param('deliveryId') deliveryId: string): Promise<DeliveryDto> {
    return this.endpoints.resend(caller.account.id, id, deliveryId);
  }

  @Route(API_ROUTES.webhooks.recover)
  @HttpCode(202)
  @ApiOperation({
    operationId: 'recoverWebhook',
    summary: 'Resend every failed delivery made since a time, in event order (one attempt each).',
    description:
      'For after an outage of your receiver, or after the endpoint was disabled: its deliveries are queued again in the order of their event ids.',
  })
  @ApiParam(ID_PARAM)
  @ApiAcceptedResponse({ type: RecoveredDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: '`since` is not a timestamp with a zone.' })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse(DISABLED)
  recover(@Caller() caller: GatewayContext, @Param('id') id: string, @Body() dto: RecoverWebhookDto): Promise<RecoveredDto> {
    return this.endpoints.recover(caller.account.id, id, dto.since);
  }

  @Route(API_ROUTES.webhooks.test)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testWebhook',
    summary: 'Send a sample event of a kind to this endpoint only, now, and report the outcome.',
    description:
      'The sample has event id 0 and the header `X-SVC-Test: 1`, is signed like every delivery, is not in the feed and is not retried. Also works on a disabled endpoint.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: TestDeliveryDto, description: 'The attempt was made (whatever the receiver answered).' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: '`event` is not a known kind.' })
  @ApiNotFoundResponse(NOT_FOUND)
  test(@Caller() caller: GatewayContext, @Param('id') id: string, @Body() dto: TestWebhookDto): Promise<TestDeliveryDto> {
    return this.endpoints.test(caller.account.id, id, dto.event);
  }

  @Route(API_ROUTES.webhooks.remove)
  @InternalCallers('gateway', 'console', 'mcp-server')
  @NoContent('Removed.')
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook endpoint; its pending deliveries are cancelled.',
    description:
      'Nothing more is sent to the endpoint, retries included. The events stay in the feed (`GET /events`). 404 for an id of another account.',
  })
  @ApiParam(ID_PARAM)
  @ApiNotFoundResponse(NOT_FOUND)
  delete(@Caller() caller: GatewayContext, @Param('id') id: string): Promise<void> {
    return this.endpoints.delete(caller.account.id, id);
  }
}
