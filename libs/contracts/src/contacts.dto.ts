import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  isEmail,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import type { EventConsent, EventContact } from './events';
import { CodePoints, IfSent, NoControlCharacters } from './validators';

/** Consent purposes. Part of the public contract: do not rename without a new API version. */
export const CONSENT_PURPOSES = [
  'reply_email',
  'reply_whatsapp',
  'future_email',
  'future_whatsapp',
] as const satisfies readonly EventConsent['purpose'][];
export type ConsentPurpose = (typeof CONSENT_PURPOSES)[number];

/** E.164: `+`, a country code that does not start with 0, at most 15 digits in all. */
export const E164 = /^\+[1-9][0-9]{1,14}$/;
/** Consents in one PUT: bounds the work of a single request (a customer may hold more). */
export const MAX_CONSENTS_PER_REQUEST = 100;

const TIMESTAMP_EXAMPLE = '2026-11-21T10:04:05.123456+00:00';

/** A BCP 47 language tag that `Intl` can canonicalise (`en`, `pt-BR`, `zh-Hant-TW`). */
export function IsLanguageTag(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isLanguageTag',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be a BCP 47 language tag such as en or pt-BR' },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || value.length > 64) return false;
          try {
            return Intl.getCanonicalLocales(value).length === 1;
          } catch {
            return false;
          }
        },
      },
    });
}

/** The canonical form of a valid BCP 47 tag (`pt-br` → `pt-BR`), as stored and returned. */
export function canonicalLanguageTag(tag: string): string {
  return Intl.getCanonicalLocales(tag)[0] as string;
}

/** `{ref}` in `/contacts/{ref}`: the business's own id of the customer. */
export class ContactRefParams {
  @ApiProperty({
    description: "The business's own id of the customer: 1 to 255 characters, URL-encoded, no control characters.",
    example: 'cust-1042',
  })
  @CodePoints(1, 255)
  @NoControlCharacters()
  ref!: string;
}

/** `:svcId` of the internal lookup `GET /internal/contacts/by-svc-id/:svcId` (not public). */
export class ContactSvcIdParams {
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  svcId!: number;
}

export class ConsentInputDto {
  @ApiProperty({
    enum: CONSENT_PURPOSES,
    example: 'future_email',
    description: 'What the person agreed to be contacted for. Part of the identity.',
  })
  @IsIn(CONSENT_PURPOSES)
  purpose!: ConsentPurpose;

  // No `default` keyword: openapi-typescript (by default) would make a field with one required in the generated types.
  @ApiPropertyOptional({ example: true, description: 'false records a refusal; true when left out.' })
  @IfSent()
  @IsBoolean()
  granted?: boolean;

  @ApiProperty({
    minLength: 1,
    maxLength: 10000,
    example: 'Yes, send me offers and news by email.',
    description: 'The exact words the person agreed to.',
  })
  @IsString()
  @CodePoints(1, 10000)
  text!: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    example: 'en',
    description: 'BCP 47 tag of the language of `text`; stored canonical.',
  })
  @IsOptional()
  @IsLanguageTag()
  lang?: string | null;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-21T11:04:05.123456+01:00',
    description:
      'When it was given: ISO 8601 with `Z` or an offset, up to microseconds. Part of the identity, matched as an instant; returned in UTC with the same microseconds.',
  })
  @IsString()
  @MaxLength(64)
  given_at!: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'website_form', description: 'Where it was given. Part of the identity.' })
  @IsString()
  @CodePoints(1, 64)
  source!: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-12-01T09:00:00Z',
    description:
      'Withdraws the consent with this identity if it is active; a new consent sent with it is stored withdrawn. Not before `given_at`.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  withdrawn_at?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    minLength: 1,
    maxLength: 64,
    example: 'customer_request',
    description: 'Who withdrew it (free text); only with `withdrawn_at`.',
  })
  @IsOptional()
  @IsString()
  @CodePoints(1, 64)
  withdrawn_by?: string | null;
}

/** `PUT /contacts/{ref}`: every field optional; omitted fields stay as they are. */
export class UpsertContactDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 48213,
    description: 'Attaches `{ref}` to the customer the chat met with this id (whose ref is still null).',
  })
  @IfSent()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  svc_id?: number;

  @ApiPropertyOptional({ maxLength: 200, example: 'Ada Lovelace', description: 'May be empty.' })
  @IfSent()
  @IsString()
  @CodePoints(0, 200)
  name?: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'email',
    nullable: true,
    maxLength: 254,
    example: 'ada@example.com',
    description: '`null` removes it.',
  })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string | null;

  @ApiPropertyOptional({
    example: true,
    description: "true when the business has proven the address is the customer's. A changed email is unconfirmed unless this says true.",
  })
  @IfSent()
  @IsBoolean()
  email_confirmed?: boolean;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    pattern: E164.source,
    example: '+447700900123',
    description: 'E.164. `null` removes it.',
  })
  @IsOptional()
  @Matches(E164, { message: '$property must be an E.164 number such as +447700900123' })
  phone?: string | null;

  @ApiPropertyOptional({
    example: false,
    description: "true when the business has proven the number is the customer's. A changed phone is unconfirmed unless this says true.",
  })
  @IfSent()
  @IsBoolean()
  phone_confirmed?: boolean;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    example: 'pt-BR',
    description: 'BCP 47 language tag; stored canonical (`pt-br` → `pt-BR`). `null` removes it.',
  })
  @IsOptional()
  @IsLanguageTag()
  lang?: string | null;

  @ApiPropertyOptional({
    type: [ConsentInputDto],
    maxItems: MAX_CONSENTS_PER_REQUEST,
    description:
      'Consents to record. Known ones (same purpose, given_at and source) are never changed, except that `withdrawn_at` withdraws an active one.',
  })
  @IfSent()
  @IsArray()
  @ArrayMaxSize(MAX_CONSENTS_PER_REQUEST)
  @ValidateNested({ each: true })
  @Type(() => ConsentInputDto)
  consents?: ConsentInputDto[];
}

/** Fails unless exactly one of this parameter and `other` was given. */
function ExactlyOneOf(other: string): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'exactlyOneOf',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `give exactly one of $property and ${other}` },
      validator: {
        validate: (value: unknown, args) => (value === undefined) !== ((args?.object as Record<string, unknown>)[other] === undefined),
      },
    });
}

/** Checks a parameter's format when it was given (whether it must be given is another rule's job). */
function IfGiven(check: (value: unknown) => boolean, message: string): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'ifGiven',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message },
      validator: { validate: (value: unknown) => value === undefined || check(value) },
    });
}

/** `GET /contacts?email=` or `?phone=`: exactly one of the two. */
export class FindContactsQueryDto {
  @ApiPropertyOptional({
    format: 'email',
    example: 'ada@example.com',
    description: 'Matched case-insensitively. Give exactly one of `email` and `phone`.',
  })
  @ExactlyOneOf('phone')
  @IfGiven((value) => typeof value === 'string' && isEmail(value), '$property must be an email address')
  email?: string;

  @ApiPropertyOptional({
    pattern: E164.source,
    example: '+447700900123',
    description: 'E.164, matched exactly. Give exactly one of `email` and `phone`.',
  })
  @IfGiven((value) => typeof value === 'string' && E164.test(value), '$property must be an E.164 number such as +447700900123')
  phone?: string;
}

export class ConsentResponseDto implements EventConsent {
  @ApiProperty({ enum: CONSENT_PURPOSES, example: 'future_email' })
  purpose!: ConsentPurpose;

  @ApiProperty({ example: true })
  granted!: boolean;

  @ApiProperty({ example: 'Yes, send me offers and news by email.' })
  text!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'en' })
  lang!: string | null;

  @ApiProperty({ format: 'date-time', example: TIMESTAMP_EXAMPLE, description: 'UTC, with the microseconds it was sent with.' })
  given_at!: string;

  @ApiProperty({ example: 'website_form' })
  source!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  withdrawn_at!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: null,
    description: 'Free text from the API; `customer` (STOP on WhatsApp) or `team` (the Withdraw action) from the chat.',
  })
  withdrawn_by!: string | null;

  @ApiProperty({ enum: ['api', 'chat'], example: 'api', description: '`api`: sent by the business; `chat`: collected in the chat.' })
  origin!: 'api' | 'chat';

  @ApiProperty({ example: true, description: 'granted and not withdrawn.' })
  active!: boolean;
}

export class ContactResponseDto implements EventContact {
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'cust-1042',
    description: "The business's id; null for a customer the chat met who has not been attached.",
  })
  ref!: string | null;

  @ApiProperty({ type: 'integer', example: 48213, description: 'Our id of the customer, assigned at creation; never changes.' })
  svc_id!: number;

  @ApiProperty({ example: 'Ada Lovelace', description: 'Empty string when unknown.' })
  name!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'ada@example.com' })
  email!: string | null;

  @ApiProperty({ example: true })
  email_confirmed!: boolean;

  @ApiProperty({ type: 'string', nullable: true, example: '+447700900123' })
  phone!: string | null;

  @ApiProperty({ example: false })
  phone_confirmed!: boolean;

  @ApiProperty({ type: 'string', nullable: true, example: 'pt-BR' })
  lang!: string | null;

  @ApiProperty({ format: 'date-time', example: TIMESTAMP_EXAMPLE })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: TIMESTAMP_EXAMPLE })
  updated_at!: string;

  @ApiProperty({ type: [ConsentResponseDto], description: 'Every consent of the customer, oldest `given_at` first.' })
  consents!: ConsentResponseDto[];
}

export class ContactListResponseDto {
  @ApiProperty({ type: [ContactResponseDto], description: 'Every customer that matches; empty when none does.' })
  contacts!: ContactResponseDto[];
}

/** A consent as stored: everything but `active`, which follows from it. */
export type StoredConsent = Omit<EventConsent, 'active'>;

/** In force: granted and not withdrawn (the contract's definition of `active`). */
export function isActiveConsent(consent: Pick<StoredConsent, 'granted' | 'withdrawn_at'>): boolean {
  return consent.granted && consent.withdrawn_at === null;
}

export function toConsentResponse(consent: StoredConsent): ConsentResponseDto {
  return { ...consent, active: isActiveConsent(consent) };
}

/** A customer as the API returns it: the contact fields, then every consent. */
export function toContactResponse(contact: EventContact, consents: StoredConsent[]): ContactResponseDto {
  return { ...contact, consents: consents.map(toConsentResponse) };
}
