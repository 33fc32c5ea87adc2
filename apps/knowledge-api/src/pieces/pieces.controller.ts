import { Body, HttpCode, Param, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  API_ROUTES,
  BulkUpsertKnowledgeDto,
  BulkUpsertKnowledgeResponseDto,
  errorExample,
  ErrorResponseDto,
  GatewayContext,
  INVALID_JSON_EXAMPLE,
  invalidFieldsExample,
  KnowledgeListResponseDto,
  KnowledgePieceDto,
  KnowledgeRefParams,
  ListKnowledgeQueryDto,
  UpsertKnowledgePieceDto,
} from '@svc/contracts';
import { ApiInvalidQueryResponse, Caller, InternalCallers, NoContent, PublicApiController, Route } from '@svc/platform';
import type { FastifyReply } from 'fastify';
import { PiecesService } from './pieces.service';

const SAMPLE_PIECE = {
  external_ref: 'faq-shipping',
  heading: 'Shipping times and costs',
  text: 'We ship to every EU country within 2 to 4 working days. Shipping is free for orders above 50 euros; below that it costs 4.90 euros.',
  url: 'https://www.example.com/help/shipping',
  created_at: '2026-11-20T09:12:44.512907+00:00',
  updated_at: '2026-11-21T10:04:05.123456+00:00',
};

const BAD_REF = {
  summary: 'The external_ref in the path is too long or has control characters',
  value: invalidFieldsExample({ path: 'external_ref', message: 'external_ref must be 1 to 255 characters (Unicode code points)' }),
};
const QUOTA = {
  summary: 'The account would hold more than 5,000 pieces',
  value: errorExample('limit_exceeded', 'An account holds at most 5,000 knowledge pieces; it has 4,990 and this call adds 12.'),
};
const INVALID_JSON = { summary: 'The body does not parse', value: INVALID_JSON_EXAMPLE };

@PublicApiController('Knowledge')
@InternalCallers('gateway', 'mcp-server')
export class PiecesController {
  constructor(private readonly pieces: PiecesService) {}

  @Route(API_ROUTES.knowledge.upsert)
  @ApiOperation({
    operationId: 'upsertKnowledgePiece',
    summary: 'Add or replace one knowledge piece.',
    description:
      'Creates the piece (201) or replaces it (200): a PUT sends the whole piece, so an omitted `url` removes the link. ' +
      'The assistant answers from it as soon as this call returns. An account holds at most 5,000 pieces.',
  })
  @ApiCreatedResponse({ type: KnowledgePieceDto, description: 'The piece was created.', example: SAMPLE_PIECE })
  @ApiOkResponse({ type: KnowledgePieceDto, description: 'The piece existed and was replaced.', example: SAMPLE_PIECE })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description:
      'Invalid fields (`details` names each), an invalid external_ref, or a new piece beyond the 5,000 of the account (`limit_exceeded`).',
    examples: {
      validation_failed: {
        summary: 'Invalid fields',
        value: invalidFieldsExample(
          { path: 'text', message: 'text must be 15 to 8000 characters (Unicode code points)' },
          { path: 'url', message: 'url must be an http or https URL' },
        ),
      },
      limit_exceeded: QUOTA,
      bad_ref: BAD_REF,
      invalid_json: INVALID_JSON,
    },
  })
  async upsert(
    @Caller() caller: GatewayContext,
    @Param() { external_ref }: KnowledgeRefParams,
    @Body() body: UpsertKnowledgePieceDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<KnowledgePieceDto> {
    const { created, piece } = await this.pieces.upsert(caller.account.id, external_ref, body);
    reply.status(created ? 201 : 200);
    return piece;
  }

  @Route(API_ROUTES.knowledge.bulk)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'bulkUpsertKnowledgePieces',
    summary: 'Add or replace up to 50 knowledge pieces at once, all or nothing.',
    description:
      'Each item is a whole piece with its `external_ref`, once per call. If any item is invalid, or an external_ref repeats, the answer is ' +
      '400 `validation_failed` with every problem in `details` (`items[3].text`) and nothing is written. If the new pieces would take the ' +
      'account past 5,000, the answer is 400 `limit_exceeded` and nothing is written.',
  })
  @ApiOkResponse({
    type: BulkUpsertKnowledgeResponseDto,
    description: 'Every piece was written.',
    example: { items: [SAMPLE_PIECE], created: 1, updated: 0 },
  })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: 'An invalid or repeated item (nothing written), or more pieces than the account may hold.',
    examples: {
      validation_failed: {
        summary: 'Invalid or repeated items',
        value: invalidFieldsExample(
          { path: 'items[3].text', message: 'text must be 15 to 8000 characters (Unicode code points)' },
          { path: 'items[7].external_ref', message: 'external_ref repeats the one of items[2]; each piece may appear once per call' },
        ),
      },
      too_many_items: {
        summary: 'More than 50 items',
        value: invalidFieldsExample({ path: 'items', message: 'items must hold 1 to 50 pieces' }),
      },
      limit_exceeded: QUOTA,
      invalid_json: INVALID_JSON,
    },
  })
  bulkUpsert(@Caller() caller: GatewayContext, @Body() body: BulkUpsertKnowledgeDto): Promise<BulkUpsertKnowledgeResponseDto> {
    return this.pieces.bulkUpsert(caller.account.id, body.items);
  }

  @Route(API_ROUTES.knowledge.list)
  @InternalCallers('gateway', 'console', 'mcp-server')
  @ApiOperation({
    operationId: 'listKnowledgePieces',
    summary: 'Look up one piece by external_ref, or list the pieces page by page.',
    description:
      'With `external_ref`: `{ "items": [piece] }`, or `{ "items": [] }` when there is none. Without it: a page of pieces in external_ref order ' +
      '(Unicode code point order) after `after`, with `next_after` and `more`.',
  })
  @ApiOkResponse({
    type: KnowledgeListResponseDto,
    examples: {
      lookup: { summary: 'external_ref=faq-shipping', value: { items: [SAMPLE_PIECE] } },
      page: { summary: 'A page of the listing', value: { items: [SAMPLE_PIECE], next_after: 'faq-shipping', more: true } },
    },
  })
  @ApiInvalidQueryResponse(
    'An invalid parameter (`limit` outside 1 to 200, an external_ref too long), `external_ref` combined with `after` or `limit`, or an unknown parameter.',
    { path: 'limit', message: 'limit must be a whole number from 1 to 200' },
  )
  list(@Caller() caller: GatewayContext, @Query() query: ListKnowledgeQueryDto): Promise<KnowledgeListResponseDto> {
    return this.pieces.list(caller.account.id, query);
  }

  @Route(API_ROUTES.knowledge.remove)
  @NoContent('Removed.')
  @ApiOperation({
    operationId: 'deleteKnowledgePiece',
    summary: 'Remove a knowledge piece.',
    description: 'The assistant stops answering from it as soon as this call returns.',
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'The external_ref is invalid.', examples: { bad_ref: BAD_REF } })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: 'The account has no piece with this external_ref.',
    example: errorExample('not_found', 'There is no knowledge piece with external_ref "faq-shipping".'),
  })
  async delete(@Caller() caller: GatewayContext, @Param() { external_ref }: KnowledgeRefParams): Promise<void> {
    await this.pieces.delete(caller.account.id, external_ref);
  }
}
