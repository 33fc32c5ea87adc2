import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Expose, Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { IsLanguageTag } from './contacts.dto';
import { ErrorBody } from './errors';
import { AfterId, CodePoints, NoControlCharacters, PageLimit, PlainText } from './validators';

/** The contract's numbers for knowledge pieces (spec "Limits", CONTRACT.md "Knowledge pieces"). */
export const KNOWLEDGE_LIMITS = {
  refMax: 255,
  headingMax: 300,
  textMin: 15,
  textMax: 8_000,
  urlMax: 2_048,
  bulkMax: 50,
  piecesPerAccount: 5_000,
  pageDefault: 100,
  pageMax: 200,
} as const;

/** Search for the assistant (internal route): how many results one call may ask for. */
export const KNOWLEDGE_SEARCH_LIMITS = { questionMax: 1_000, resultsDefault: 5, resultsMax: 20, batchMax: 32 } as const;

/** Items of one bulk call whose external_ref an earlier item already uses: item → that item's index. */
const REPEATED_REFS = new WeakMap<object, number>();

/** Runs when the body becomes DTOs, before validation: notes each item that repeats an earlier ref. */
function noteRepeatedRefs(items: unknown): unknown {
  if (!Array.isArray(items)) return items;
  const firstIndex = new Map<string, number>();
  items.forEach((item: unknown, index) => {
    const ref = typeof item === 'object' && item !== null ? (item as { external_ref?: unknown }).external_ref : undefined;
    if (typeof ref !== 'string') return;
    const first = firstIndex.get(ref);
    if (first === undefined) firstIndex.set(ref, index);
    else REPEATED_REFS.set(item as object, first);
  });
  return items;
}

/** An item's external_ref must not repeat one an earlier item of the same bulk call uses. */
function NotRepeatedInBatch(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'notRepeatedInBatch',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (_value: unknown, args: ValidationArguments) => !REPEATED_REFS.has(args.object),
        defaultMessage: (args: ValidationArguments) =>
          `external_ref repeats the one of items[${REPEATED_REFS.get(args.object)}]; each piece may appear once per call`,
      },
    });
}

const REF_DESCRIPTION = "The business's own id of the piece: 1 to 255 characters, no control characters.";

/** `{externalRef}` in `/knowledge/{externalRef}` (URL-encoded in the path). Reported as `external_ref`. */
export class KnowledgeRefParams {
  @ApiProperty({ name: 'externalRef', description: `${REF_DESCRIPTION} URL-encoded in the path.`, example: 'faq-shipping' })
  @Expose({ name: 'externalRef' })
  @CodePoints(1, KNOWLEDGE_LIMITS.refMax)
  @NoControlCharacters()
  external_ref!: string;
}

/** Body of `PUT /knowledge/{externalRef}`: the whole piece (a PUT replaces it; an omitted url means none). */
export class UpsertKnowledgePieceDto {
  @ApiProperty({
    description: 'Title of the piece: 1 to 300 characters.',
    minLength: 1,
    maxLength: KNOWLEDGE_LIMITS.headingMax,
    example: 'Shipping times and costs',
  })
  @IsString()
  @CodePoints(1, KNOWLEDGE_LIMITS.headingMax)
  @NoControlCharacters()
  heading!: string;

  @ApiProperty({
    description:
      'What the assistant answers from: 15 to 8,000 characters counted as Unicode code points (an emoji is one). Line breaks allowed.',
    minLength: KNOWLEDGE_LIMITS.textMin,
    maxLength: KNOWLEDGE_LIMITS.textMax,
    example:
      'We ship to every EU country within 2 to 4 working days. Shipping is free for orders above 50 euros; below that it costs 4.90 euros.',
  })
  @IsString()
  @CodePoints(KNOWLEDGE_LIMITS.textMin, KNOWLEDGE_LIMITS.textMax)
  @PlainText()
  text!: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    format: 'uri',
    maxLength: KNOWLEDGE_LIMITS.urlMax,
    description: 'Optional link to the page the piece comes from: http or https, at most 2,048 characters. Omitted or null: none.',
    example: 'https://www.example.com/help/shipping',
  })
  @IsOptional()
  @IsString()
  @MaxLength(KNOWLEDGE_LIMITS.urlMax)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: '$property must be an http or https URL' })
  url?: string | null;
}

/** One item of `POST /knowledge/bulk`. */
export class KnowledgeBulkItemDto extends UpsertKnowledgePieceDto {
  @ApiProperty({
    description: `${REF_DESCRIPTION} Once per call.`,
    minLength: 1,
    maxLength: KNOWLEDGE_LIMITS.refMax,
    example: 'faq-shipping',
  })
  @IsString()
  @CodePoints(1, KNOWLEDGE_LIMITS.refMax)
  @NoControlCharacters()
  @NotRepeatedInBatch()
  external_ref!: string;
}

export class BulkUpsertKnowledgeDto {
  @ApiProperty({
    type: [KnowledgeBulkItemDto],
    minItems: 1,
    maxItems: KNOWLEDGE_LIMITS.bulkMax,
    description: '1 to 50 pieces, each external_ref once. All or nothing: one invalid item and none is written.',
  })
  @IsArray()
  @ArrayMinSize(1, { message: 'items must hold 1 to 50 pieces' })
  @ArrayMaxSize(KNOWLEDGE_LIMITS.bulkMax, { message: 'items must hold 1 to 50 pieces' })
  @ValidateNested({ each: true })
  @Type(() => KnowledgeBulkItemDto)
  @Transform(({ value }: { value: unknown }) => noteRepeatedRefs(value))
  items!: KnowledgeBulkItemDto[];
}

export class KnowledgePieceDto {
  @ApiProperty({ example: 'faq-shipping' })
  external_ref!: string;

  @ApiProperty({ example: 'Shipping times and costs' })
  heading!: string;

  @ApiProperty({
    example:
      'We ship to every EU country within 2 to 4 working days. Shipping is free for orders above 50 euros; below that it costs 4.90 euros.',
  })
  text!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'https://www.example.com/help/shipping' })
  url!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-20T09:12:44.512907+00:00' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:04:05.123456+00:00' })
  updated_at!: string;
}

export class BulkUpsertKnowledgeResponseDto {
  @ApiProperty({ type: [KnowledgePieceDto], description: 'Every piece written, in the order of the request.' })
  items!: KnowledgePieceDto[];

  @ApiProperty({ description: 'Pieces that did not exist before.', example: 48 })
  created!: number;

  @ApiProperty({ description: 'Pieces that existed and were replaced.', example: 2 })
  updated!: number;
}

export class ListKnowledgeQueryDto {
  @ApiPropertyOptional({
    description: 'Look up one piece: the answer holds it or nothing. Not combined with `after` or `limit`.',
    example: 'faq-shipping',
  })
  @IsOptional()
  @IsString()
  @CodePoints(1, KNOWLEDGE_LIMITS.refMax)
  @NoControlCharacters()
  external_ref?: string;

  @ApiPropertyOptional({
    description: 'List the pieces whose external_ref sorts after this one (the `next_after` of the previous page).',
    example: 'faq-returns',
  })
  @IsOptional()
  @IsString()
  @CodePoints(1, KNOWLEDGE_LIMITS.refMax)
  @NoControlCharacters()
  after?: string;

  @ApiPropertyOptional({
    description: 'Pieces per page.',
    default: KNOWLEDGE_LIMITS.pageDefault,
    minimum: 1,
    maximum: KNOWLEDGE_LIMITS.pageMax,
    example: 100,
  })
  @PageLimit(KNOWLEDGE_LIMITS.pageMax)
  limit?: number;
}

export class KnowledgeListResponseDto {
  @ApiProperty({
    type: [KnowledgePieceDto],
    description: 'Ordered by external_ref (Unicode code point order). With `external_ref`: that piece, or empty.',
  })
  items!: KnowledgePieceDto[];

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description:
      'Listing only: the `after` to send next (the external_ref of the last item), or the `after` sent when the page is empty (null on the first page).',
    example: 'faq-shipping',
  })
  next_after?: string | null;

  @ApiPropertyOptional({ description: 'Listing only: more pieces follow; call again with `after=next_after`.', example: false })
  more?: boolean;
}

/** Body of the assistant's `POST /internal/knowledge/search` (not public). */
export class SearchKnowledgeDto {
  @IsString()
  @CodePoints(1, KNOWLEDGE_SEARCH_LIMITS.questionMax)
  @PlainText()
  question!: string;

  /** The visitor's language, a BCP 47 tag (`de`, `pt-BR`). */
  @IsString()
  @Matches(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, { message: '$property must be a BCP 47 language tag such as en or pt-BR' })
  lang!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(KNOWLEDGE_SEARCH_LIMITS.resultsMax)
  limit?: number;
}

/**
 * Body of `POST /internal/knowledge/searches` (not public): questions of one account, answered in their order.
 * Each entry is a SearchKnowledgeDto checked on its own: a bad one is refused in its place, the others are answered.
 */
export class SearchKnowledgeBatchDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(KNOWLEDGE_SEARCH_LIMITS.batchMax)
  searches!: unknown[];
}

export interface KnowledgeSearchResult {
  external_ref: string;
  heading: string;
  url: string | null;
  /** The part of the text that best matches the question. */
  passage: string;
  /** Relevance in [0, 1): higher is better. */
  score: number;
}

export interface KnowledgeSearchResponse {
  results: KnowledgeSearchResult[];
}

/** `POST /internal/knowledge/searches`: each search's results, in the order of `searches`; a search refused alone, its error. */
export interface KnowledgeSearchBatchResponse {
  results: Array<KnowledgeSearchResult[] | ErrorBody>;
}

// ---- What the team taught the assistant (internal routes, for the console and MCP) ----

/** Taught questions: their length, how many an account holds, pages of the list. */
export const TAUGHT_LIMITS = { questionMax: 1_000, perAccount: 5_000, pageDefault: 50, pageMax: 200 } as const;

/** Marks a property that may be null (checked only when it is not): the MCP tool's schema says `[type, "null"]`. */
export function NullOr(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    ValidateIf((dto: object) => (dto as Record<string | symbol, unknown>)[propertyName] !== null)(target, propertyName);
    registerDecorator({
      name: 'isNullable',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: { validate: () => true },
    });
  };
}

/** `POST /internal/knowledge/taught`: from now on the assistant answers `question` (and its paraphrases) from a piece, or with nothing. */
export class TeachAssistantDto {
  /** The customer's question, as asked. */
  @IsString()
  @CodePoints(1, TAUGHT_LIMITS.questionMax)
  @PlainText()
  @Matches(/[\p{L}\p{N}]/u, { message: '$property must contain a word' })
  question!: string;

  /** The language it was asked in, a BCP 47 tag; without it, the language of the question's words. */
  @IsOptional()
  @IsLanguageTag()
  lang?: string;

  /** The piece that answers it, or null for "no piece answers this". */
  @NullOr()
  @IsString({ message: '$property must be the external_ref of a piece, or null when no piece answers this' })
  @CodePoints(1, KNOWLEDGE_LIMITS.refMax)
  @NoControlCharacters()
  external_ref!: string | null;
}

/** `GET /internal/knowledge/taught?after=&limit=`: newest first. */
export class ListTaughtQueryDto {
  /** The `next_after` of the previous page. */
  @AfterId()
  after?: number;

  @PageLimit(TAUGHT_LIMITS.pageMax)
  limit?: number;
}

/** `DELETE /internal/knowledge/taught/:id`. */
export class TaughtIdParams {
  @Type(() => Number)
  @IsInt({ message: '$property must be the id of a taught question' })
  @Min(1, { message: '$property must be the id of a taught question' })
  @Max(Number.MAX_SAFE_INTEGER, { message: '$property must be the id of a taught question' })
  id!: number;
}

/** A question the team taught: the piece that answers it, or null ("no piece answers this"). */
export interface TaughtItem {
  id: number;
  question: string;
  /** As given, or the question's language detected (`und` when none is known). */
  lang: string;
  external_ref: string | null;
  created_at: string;
  /** `team:<member id>` (the console) or `agent:<API key id>` (MCP). */
  created_by: string;
}

/** `GET /internal/knowledge/taught` → 200. */
export interface TaughtPage {
  items: TaughtItem[];
  /** The `after` for the next page, or the `after` sent when the page is empty (null on the first). */
  next_after: number | null;
  more: boolean;
}
