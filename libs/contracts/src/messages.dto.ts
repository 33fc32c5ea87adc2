import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsObject, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { EVENT_KINDS } from './events';
import { IsAnyUuid } from './validators';

/** Every kind on the domain exchange: the public events and the internal messages. */
export const DOMAIN_KINDS: readonly string[] = [...EVENT_KINDS, 'contact.erased', 'contact.changed', 'knowledge.changed'];

/** How an envelope's consumer words a failed check: what the field is not, or what it must be. */
type Wording = (what: string) => string;
const isNot: Wording = (what) => `$property is not ${what}`;
const mustBe: Wording = (what) => `$property must be ${what}`;

/** What both envelopes end with: `at` (text; its consumer checks it) and `data`; problems name the envelope's `wording`. */
function TimeAndData(wording: Wording, timestamp: string) {
  abstract class TimeAndDataDto {
    @IsString({ message: wording(timestamp) })
    at!: string;

    @IsObject({ message: wording('an object') })
    data!: Record<string, unknown>;
  }
  return TimeAndDataDto;
}

/** A `DomainMessage` envelope as a consumer checks it; the consumer checks the timestamp and the data per kind. */
export class DomainMessageDto extends TimeAndData(isNot, 'a timestamp with a zone') {
  @IsAnyUuid()
  id!: string;

  @IsAnyUuid()
  account_id!: string;

  @IsIn(DOMAIN_KINDS, { message: '$property is unknown' })
  kind!: string;
}

/**
 * contacts-api's messages about one committed write of a customer (`contact.changed`,
 * `contact.erased`), handed to the chat directly so that its model shows the write before the write
 * answers (`POST /internal/chat/customer-changes`); the same messages follow through the broker.
 */
export class CustomerChangesDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => DomainMessageDto)
  messages!: DomainMessageDto[];
}

/** A public event as events-api publishes it (`PublicEvent`); syntax only, so that a kind added later still passes. */
export class RecordedPublicEventDto extends TimeAndData(mustBe, 'a timestamp') {
  @IsInt({ message: mustBe('a positive integer') })
  @Min(1, { message: mustBe('a positive integer') })
  id!: number;

  @Matches(/^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/, { message: mustBe('an event kind') })
  event!: string;
}

/** What events-api publishes on the events exchange once an event has its public id (`RecordedEvent`). */
export class RecordedEventDto {
  @IsAnyUuid({ message: mustBe('a UUID') })
  account_id!: string;

  @IsObject({ message: mustBe('an object') })
  @ValidateNested()
  @Type(() => RecordedPublicEventDto)
  event!: RecordedPublicEventDto;
}
