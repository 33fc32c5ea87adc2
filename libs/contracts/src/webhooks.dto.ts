import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateBy, ValidationOptions } from 'class-validator';
import { EVENT_KINDS, EventKind } from './events';

/** At most this many endpoints per account (the contract's limit). */
export const WEBHOOK_ENDPOINTS_MAX = 10;
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** Why `value` is not an acceptable receiver address (syntax only; the addresses it reaches are checked by the dispatcher). */
export function webhookUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute URL such as https://example.com/webhooks';
  }
  if (url.protocol !== 'https:') return 'url must use https';
  if (url.username || url.password) return 'url must not contain a user name or password';
  return undefined;
}

function IsWebhookUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebhookUrl',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && webhookUrlProblem(value) === undefined,
        defaultMessage: (args) => (typeof args?.value === 'string' ? (webhookUrlProblem(args.value) ?? '') : 'url must be a string'),
      },
    },
    options,
  );
}

const URL_EXAMPLE = 'https://api.acme-rentals.example/svc/webhooks';
const EVENTS_DESCRIPTION = 'The kinds sent to this endpoint; `null` means every kind, including kinds added later.';

/** `POST /webhooks`. */
export class CreateWebhookDto {
  @ApiProperty({ description: 'Where deliveries are POSTed: https only. Addresses on private, loopback, link-local or reserved networks are refused.', maxLength: WEBHOOK_URL_MAX_LENGTH, example: URL_EXAMPLE })
  @IsString({ message: 'url must be a string' })
  @MaxLength(WEBHOOK_URL_MAX_LENGTH, { message: `url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters` })
  @IsWebhookUrl()
  url!: string;

  @ApiPropertyOptional({
    enum: EVENT_KINDS,
    isArray: true,
    nullable: true,
    minItems: 1,
    uniqueItems: true,
    description: `${EVENTS_DESCRIPTION} Omit it (or send \`null\`) for every kind; when sent, a non-empty list of known kinds without repeats.`,
    example: ['handover.created', 'consent.withdrawn'],
  })
  @IsOptional()
  @IsArray({ message: 'events must be a list of event kinds' })
  @ArrayMinSize(1, { message: 'events must not be empty; omit it to receive every kind' })
  @ArrayUnique({ message: 'events must not repeat a kind' })
  @IsIn(EVENT_KINDS, { each: true, message: `events may contain only ${EVENT_KINDS.join(', ')}` })
  events?: EventKind[] | null;
}

/** A registered endpoint as `GET /webhooks` lists it: never its secret. */
export class WebhookEndpointDto {
  @ApiProperty({ description: 'Used in `DELETE /webhooks/{id}`.', example: 17 })
  id!: number;

  @ApiProperty({ description: 'The receiver address, as the dispatcher calls it (normalised: `https://Example.com` → `https://example.com/`).', example: URL_EXAMPLE })
  url!: string;

  @ApiProperty({ enum: EVENT_KINDS, isArray: true, nullable: true, description: EVENTS_DESCRIPTION, example: ['handover.created', 'consent.withdrawn'] })
  events!: EventKind[] | null;

  @ApiProperty({ enum: ['active'], description: 'Endpoints receive deliveries while they exist; a deleted one is gone from the list.', example: 'active' })
  status!: 'active';

  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:04:05.123456+00:00' })
  created_at!: string;
}

/** `POST /webhooks` → 201: the one response that carries the signing secret. */
export class CreatedWebhookDto extends WebhookEndpointDto {
  @ApiProperty({
    description: 'Signing secret (`whsec_` + 32 random bytes, base64url). Shown only in this response: store it to verify `X-SVC-Signature`.',
    example: 'whsec_jB3hBHYfTaO-KhEj88VB1XSSEy9y_0Dp8swUk9CKA8E',
  })
  secret!: string;
}

/** `GET /webhooks` → 200. */
export class WebhookListDto {
  @ApiProperty({ type: [WebhookEndpointDto], description: 'Oldest first; at most 10.' })
  webhooks!: WebhookEndpointDto[];
}
