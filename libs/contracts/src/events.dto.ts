import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { sampleEventData } from './event-samples';
import { EVENT_KINDS, EventKind } from './events';
import { QueryInteger } from './validators';

export const EVENTS_PAGE_DEFAULT = 100;
export const EVENTS_PAGE_MAX = 200;


export class EventsQueryDto {
  @ApiPropertyOptional({ description: 'Id of the last event processed; start with 0.', default: 0, minimum: 0, example: 0 })
  @IsOptional()
  @QueryInteger(16)
  @IsInt({ message: 'after must be a whole number of 0 or more' })
  @Min(0, { message: 'after must be a whole number of 0 or more' })
  @Max(Number.MAX_SAFE_INTEGER, { message: `after must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}` })
  after?: number;

  @ApiPropertyOptional({ description: 'Events per page.', default: EVENTS_PAGE_DEFAULT, minimum: 1, maximum: EVENTS_PAGE_MAX, example: 100 })
  @IsOptional()
  @QueryInteger(16)
  @IsInt({ message: `limit must be a whole number from 1 to ${EVENTS_PAGE_MAX}` })
  @Min(1, { message: `limit must be a whole number from 1 to ${EVENTS_PAGE_MAX}` })
  @Max(EVENTS_PAGE_MAX, { message: `limit must be a whole number from 1 to ${EVENTS_PAGE_MAX}` })
  limit?: number;
}

/** The example of `data` in the docs: a fixed moment, so the generated document is stable. */
const SAMPLE_DATA = sampleEventData('contact.confirmed', { now: new Date('2026-11-21T10:04:05.123Z'), n: 42, appUrl: 'https://app.example.com' });

/**
 * An event of the feed. In the published OpenAPI document this schema is replaced by the union of
 * every kind discriminated by `event` (`eventSchemas()`, event-schemas.ts), which types `data` per kind.
 */
export class EventDto {
  @ApiProperty({ description: 'Increasing per account; the same id in the feed and in every webhook attempt.', example: 1287 })
  id!: number;

  @ApiProperty({ enum: EVENT_KINDS, example: 'contact.confirmed' })
  event!: EventKind;

  @ApiProperty({ format: 'date-time', description: 'When it happened (UTC, microseconds).', example: '2026-11-21T10:04:05.123456+00:00' })
  at!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Depends on the kind. `contact` is the customer without consents; `conversation` is `{id, channel, url}`. See "Events" in the API guide for every kind.',
    example: SAMPLE_DATA,
  })
  data!: Record<string, unknown>;
}

export class EventsPageDto {
  @ApiProperty({ type: [EventDto], description: 'In increasing id order.' })
  events!: EventDto[];

  @ApiProperty({ description: 'The `after` to send next: the id of the last event returned, or `after` when none.', example: 1287 })
  next_after!: number;

  @ApiProperty({ description: 'More events exist now: call again at once with `next_after`.', example: false })
  more!: boolean;
}
