import { Body, Param, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import {
  API_ROUTES,
  ContactListResponseDto,
  ContactRefParams,
  ContactResponseDto,
  errorExample,
  ErrorResponseDto,
  FindContactsQueryDto,
  GatewayContext,
  INVALID_JSON_EXAMPLE,
  invalidFieldsExample,
  UpsertContactDto,
} from '@svc/contracts';
import { ApiInvalidQueryResponse, Caller, InternalCallers, NoContent, PublicApiController, Route } from '@svc/platform';
import type { FastifyReply } from 'fastify';
import { CustomersService } from './customers.service';

const BAD_REF = {
  summary: 'The ref in the path is too long or has control characters',
  value: invalidFieldsExample({ path: 'ref', message: 'ref must be 1 to 255 characters' }),
};
const NOT_FOUND = {
  type: ErrorResponseDto,
  description: 'No customer of this account has this ref.',
  example: errorExample('not_found', 'There is no customer with ref "cust-1042".'),
};

@PublicApiController('Customers')
@InternalCallers('gateway', 'mcp-server')
export class ContactsController {
  constructor(private readonly customers: CustomersService) {}

  @Route(API_ROUTES.contacts.upsert)
  @ApiOperation({
    operationId: 'upsertContact',
    summary: 'Create or update a customer and record consents.',
    description:
      'Creates the customer (201) or updates it (200). Omitted fields stay as they are; `null` clears `email`, `phone` or `lang`. ' +
      'A new customer starts with name `""`, no email, phone or lang, and nothing confirmed. A changed email or phone is unconfirmed ' +
      'unless the same request sends `email_confirmed: true` / `phone_confirmed: true`. Consents are identified by purpose + given_at ' +
      '(as an instant, to the microsecond) + source: a new one is recorded with origin `api`; a known one never changes, except that ' +
      '`withdrawn_at` withdraws it while it is active (no `consent.withdrawn` event is sent for it). `svc_id` attaches `{ref}` to a ' +
      'customer the chat met (200).',
  })
  @ApiCreatedResponse({ type: ContactResponseDto, description: 'The customer was created.' })
  @ApiOkResponse({
    type: ContactResponseDto,
    description: 'The customer was updated, or `{ref}` was attached to the chat-met customer `svc_id` names.',
  })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: 'The body is not JSON, or fields are invalid: `details` names each (`consents[0].given_at`).',
    examples: {
      validation_failed: {
        summary: 'Invalid fields',
        value: invalidFieldsExample(
          { path: 'phone', message: 'phone must be an E.164 number such as +447700900123' },
          {
            path: 'consents[0].given_at',
            message:
              'given_at must be an ISO 8601 date-time with Z or an offset and at most microseconds, such as 2026-11-21T10:04:05.123456+00:00',
          },
        ),
      },
      invalid_json: { summary: 'The body does not parse', value: INVALID_JSON_EXAMPLE },
      bad_ref: BAD_REF,
    },
  })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: '`svc_id` names no customer of this account.',
    example: errorExample('not_found', 'There is no customer with svc_id 48213.'),
  })
  @ApiConflictResponse({
    type: ErrorResponseDto,
    description: 'With `svc_id`: that customer already has another ref, or `{ref}` already names another customer.',
    example: errorExample('conflict', 'The customer with svc_id 48213 already has another ref; it cannot be attached to "cust-1042".'),
  })
  async upsert(
    @Caller() caller: GatewayContext,
    @Param() { ref }: ContactRefParams,
    @Body() body: UpsertContactDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ContactResponseDto> {
    const { created, contact } = await this.customers.upsert(caller.account.id, ref, body, caller.requestId);
    reply.status(created ? 201 : 200);
    return contact;
  }

  @Route(API_ROUTES.contacts.get)
  @InternalCallers('gateway', 'console', 'mcp-server')
  @ApiOperation({
    operationId: 'getContact',
    summary: 'A customer with every consent.',
    description:
      'The customer stored under your `ref`, with every consent (granted, refused and withdrawn), oldest `given_at` first. 404 when there is none.',
  })
  @ApiOkResponse({ type: ContactResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'The ref is invalid.', examples: { bad_ref: BAD_REF } })
  @ApiNotFoundResponse(NOT_FOUND)
  get(@Caller() caller: GatewayContext, @Param() { ref }: ContactRefParams): Promise<ContactResponseDto> {
    return this.customers.get(caller.account.id, ref);
  }

  @Route(API_ROUTES.contacts.list)
  @InternalCallers('gateway', 'console', 'mcp-server')
  @ApiOperation({
    operationId: 'findContacts',
    summary: 'Customers by email (case-insensitive) or by phone.',
    description: 'Exactly one of `email` and `phone`. Every match, with consents, oldest customer first; an empty list when none.',
  })
  @ApiOkResponse({ type: ContactListResponseDto })
  @ApiInvalidQueryResponse('Not exactly one of `email` and `phone`, an invalid value, or an unknown parameter.', {
    path: 'email',
    message: 'give exactly one of email and phone',
  })
  find(@Caller() caller: GatewayContext, @Query() query: FindContactsQueryDto): Promise<ContactListResponseDto> {
    return this.customers.find(caller.account.id, query);
  }

  @Route(API_ROUTES.contacts.erase)
  @NoContent('Erased.')
  @ApiOperation({
    operationId: 'deleteContact',
    summary: 'Erase a customer.',
    description: 'Removes the customer and their consents, and has their personal data removed from retained events and chat records.',
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'The ref is invalid.', examples: { bad_ref: BAD_REF } })
  @ApiNotFoundResponse(NOT_FOUND)
  erase(@Caller() caller: GatewayContext, @Param() { ref }: ContactRefParams): Promise<void> {
    return this.customers.erase(caller.account.id, ref, caller.requestId);
  }
}
