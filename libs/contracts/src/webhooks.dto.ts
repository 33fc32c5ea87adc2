import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateBy, ValidationOptions } from 'class-validator';
import { EVENT_KINDS, EventKind } from './events';
import { AfterId, IfSent, PageLimit } from './validators';

export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const WEBHOOK_DISABLED_REASONS = ['failing', 'manual'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const DELIVERIES_PAGE_DEFAULT = 100;
export const DELIVERIES_PAGE_MAX = 200;

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

/** A receiver address: a string of at most WEBHOOK_URL_MAX_LENGTH characters that `IsWebhookUrl` accepts. */
function WebhookUrl(): PropertyDecorator {
  return applyDecorators(
    IsString({ message: 'url must be a string' }),
    MaxLength(WEBHOOK_URL_MAX_LENGTH, { message: `url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters` }),
    IsWebhookUrl(),
  );
}

const EVENTS_DESCRIPTION = 'The kinds sent to this endpoint; `null` means every kind, including kinds added later.';

/** An endpoint's optional kinds: known, distinct, non-empty (`empty` says what to send instead). */
function EventKindList(empty: string, description: string, example: EventKind[]): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      enum: EVENT_KINDS,
      isArray: true,
      nullable: true,
      minItems: 1,
      uniqueItems: true,
      description: `${EVENTS_DESCRIPTION} ${description}`,
      example,
    }),
    IsOptional(),
    IsArray({ message: 'events must be a list of event kinds' }),
    ArrayMinSize(1, { message: `events must not be empty; ${empty}` }),
    ArrayUnique({ message: 'events must not repeat a kind' }),
    IsIn(EVENT_KINDS, { each: true, message: `events may contain only ${EVENT_KINDS.join(', ')}` }),
  );
}

const URL_EXAMPLE = 'https://api.acme-rentals.example/svc/webhooks';

/** `POST /webhooks`. */
export class CreateWebhookDto {
  @ApiProperty({
    description: 'Where deliveries are POSTed: https only. Addresses on private, loopback, link-local or reserved networks are refused.',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    example: URL_EXAMPLE,
  })
  @WebhookUrl()
  url!: string;

  @EventKindList(
    'omit it to receive every kind',
    'Omit it (or send `null`) for every kind; when sent, a non-empty list of known kinds without repeats.',
    ['handover.created', 'consent.withdrawn'],
  )
  events?: EventKind[] | null;
}

/** A registered endpoint as `GET /webhooks` lists it: never its secret. */
export class WebhookEndpointDto {
  @ApiProperty({ description: 'Used in `DELETE /webhooks/{id}`.', example: 17 })
  id!: number;

  @ApiProperty({
    description: 'The receiver address, as the dispatcher calls it (normalised: `https://Example.com` → `https://example.com/`).',
    example: URL_EXAMPLE,
  })
  url!: string;

  @ApiProperty({
    enum: EVENT_KINDS,
    isArray: true,
    nullable: true,
    description: EVENTS_DESCRIPTION,
    example: ['handover.created', 'consent.withdrawn'],
  })
  events!: EventKind[] | null;

  @ApiProperty({
    enum: WEBHOOK_STATUSES,
    description:
      '`disabled` endpoints get no attempts: their deliveries are recorded as `failed` (the events stay in the feed) and `recover` sends them once the endpoint is enabled again.',
    example: 'enabled',
  })
  status!: WebhookStatus;

  @ApiProperty({
    type: 'string',
    enum: WEBHOOK_DISABLED_REASONS,
    nullable: true,
    description:
      'Why it is disabled: `failing` (every delivery failed for 5 days, so the service turned it off) or `manual` (PATCH); null while enabled.',
    example: null,
  })
  disabled_reason!: WebhookDisabledReason | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:04:05.123456+00:00' })
  created_at!: string;
}

/** `POST /webhooks` → 201: the one response that carries the signing secret. */
export class CreatedWebhookDto extends WebhookEndpointDto {
  @ApiProperty({
    description:
      'Signing secret (`whsec_` + 32 random bytes, base64url). Shown only in this response: store it to verify `X-SVC-Signature`.',
    example: 'whsec_jB3hBHYfTaO-KhEj88VB1XSSEy9y_0Dp8swUk9CKA8E',
  })
  secret!: string;
}

/** `GET /webhooks` → 200. */
export class WebhookListDto {
  @ApiProperty({ type: [WebhookEndpointDto], description: 'Oldest first; at most 10.' })
  webhooks!: WebhookEndpointDto[];
}

/** `PATCH /webhooks/{id}`: any of the fields; the others keep their value. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({
    description: 'A new receiver address: the same rules as at registration.',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    example: URL_EXAMPLE,
  })
  @IfSent()
  @WebhookUrl()
  url?: string;

  @EventKindList('send null for every kind', '`null` for every kind; a list must be non-empty, of known kinds, without repeats.', [
    'handover.created',
  ])
  events?: EventKind[] | null;

  @ApiPropertyOptional({
    enum: WEBHOOK_STATUSES,
    description:
      '`disabled` stops attempts (deliveries are recorded as `failed`); `enabled` turns the endpoint on again, also after the service disabled it.',
    example: 'enabled',
  })
  @IfSent()
  @IsIn(WEBHOOK_STATUSES, { message: 'status must be enabled or disabled' })
  status?: WebhookStatus;
}

/** `POST /webhooks/{id}/rotate-secret` → 200. */
export class RotatedSecretDto {
  @ApiProperty({ description: 'The new signing secret, shown only here.', example: 'whsec_Q2hhbmdlZCBzZWNyZXQgZm9yIHRoZSBSRUFETUU' })
  secret!: string;

  @ApiProperty({
    format: 'date-time',
    description:
      'Until then X-SVC-Signature is signed with the previous secret and X-SVC-Signature-Next with the new one; afterwards X-SVC-Signature with the new one alone.',
    example: '2026-11-22T10:04:05.123456+00:00',
  })
  previous_expires_at!: string;
}

/** `GET /webhooks/{id}/deliveries` query. */
export class DeliveriesQueryDto {
  @ApiPropertyOptional({
    description: 'Id of the last delivery seen (`next_after` of the previous page); start with 0.',
    default: 0,
    minimum: 0,
    example: 0,
  })
  @AfterId()
  after?: number;

  @ApiPropertyOptional({
    description: 'Deliveries per page.',
    default: DELIVERIES_PAGE_DEFAULT,
    minimum: 1,
    maximum: DELIVERIES_PAGE_MAX,
    example: 100,
  })
  @PageLimit(DELIVERIES_PAGE_MAX)
  limit?: number;

  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this state.' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;
}

export class DeliveryAttemptDto {
  @ApiProperty({ format: 'date-time', description: 'When the attempt started.', example: '2026-11-21T10:04:05.123456+00:00' })
  at!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's status; null when there was no answer.", example: 503 })
  status_code!: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Why it failed (`answered 503`, `no answer within 8000 ms`, a connection or TLS error code); null on success. Never your response body.',
    example: 'answered 503',
  })
  error!: string | null;

  @ApiProperty({ description: 'How long it took, in milliseconds.', example: 212 })
  duration_ms!: number;
}

export class DeliveryDto {
  @ApiProperty({ description: 'Used in `resend`.', example: 5521 })
  id!: number;

  @ApiProperty({ description: 'The event id (the same in the feed and in X-SVC-Event-Id).', example: 1287 })
  event_id!: number;

  @ApiProperty({ enum: EVENT_KINDS, example: 'handover.created' })
  event!: EventKind;

  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description: '`pending` while attempts remain, then `delivered` or `failed`.',
    example: 'failed',
  })
  status!: DeliveryStatus;

  @ApiProperty({ type: [DeliveryAttemptDto], description: 'Oldest first.' })
  attempts!: DeliveryAttemptDto[];

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the next attempt is due; null once the delivery is finished.',
    example: null,
  })
  next_attempt_at!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:04:05.123456+00:00' })
  created_at!: string;
}

/** `GET /webhooks/{id}/deliveries` → 200. */
export class DeliveryListDto {
  @ApiProperty({ type: [DeliveryDto], description: 'Oldest first (newest last).' })
  deliveries!: DeliveryDto[];

  @ApiProperty({
    description: 'Id of the last delivery returned, or `after` when none: pass it as `after` for the next page.',
    example: 5521,
  })
  next_after!: number;

  @ApiProperty({ description: 'More deliveries exist now.', example: false })
  more!: boolean;
}

/** `POST /webhooks/{id}/recover`. */
export class RecoverWebhookDto {
  @ApiProperty({
    format: 'date-time',
    description: 'Resend every failed delivery made since then (ISO 8601 with `Z` or an offset).',
    example: '2026-11-20T00:00:00Z',
  })
  @IsString({ message: 'since must be a timestamp such as 2026-11-20T00:00:00Z' })
  @MaxLength(64, { message: 'since must be a timestamp such as 2026-11-20T00:00:00Z' })
  since!: string;
}

/** `POST /webhooks/{id}/recover` → 202. */
export class RecoveredDto {
  @ApiProperty({ description: 'How many failed deliveries were queued again, in event order.', example: 3 })
  resent!: number;
}

/** `POST /webhooks/{id}/test`. */
export class TestWebhookDto {
  @ApiProperty({ enum: EVENT_KINDS, description: 'The kind of sample event to send.', example: 'message.received' })
  @IsIn(EVENT_KINDS, { message: `event must be one of ${EVENT_KINDS.join(', ')}` })
  event!: EventKind;
}

/** `POST /webhooks/{id}/test` → 200: the one attempt's outcome. */
export class TestDeliveryDto {
  @ApiProperty({ description: 'The receiver answered 2xx in time.', example: true })
  delivered!: boolean;

  @ApiProperty({ type: 'integer', nullable: true, example: 204 })
  status_code!: number | null;

  @ApiProperty({ example: 187 })
  duration_ms!: number;

  @ApiProperty({ type: 'string', nullable: true, example: null, description: 'Why it failed; null on success.' })
  error!: string | null;
}
