import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { sampleEventData } from './event-samples';
import { EVENT_KINDS, EventKind } from './events';
import { AfterId, PageLimit } from './validators';

export const EVENTS_PAGE_DEFAULT = 100;
export const EVENTS_PAGE_MAX = 200;

export class EventsQueryDto {
  @ApiPropertyOptional({ description: 'Id of the last event processed; start with 0.', default: 0, minimum: 0, example: 0 })
  @AfterId()
  after?: number;

  @ApiPropertyOptional({
    description: 'Events per page.',
    default: EVENTS_PAGE_DEFAULT,
    minimum: 1,
    maximum: EVENTS_PAGE_MAX,
    example: 100,
  })
  @PageLimit(EVENTS_PAGE_MAX)
  limit?: number;
}

/** The example of `data` in the docs: a fixed moment, so the generated document is stable. */
const SAMPLE_DATA = sampleEventData('contact.confirmed', {
  now: new Date('2026-11-21T10:04:05.123Z'),
  n: 42,
  appUrl: 'https://app.example.com',
});

/** An event of the feed; the OpenAPI document replaces it with the per-kind union of `eventSchemas()`. */
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
