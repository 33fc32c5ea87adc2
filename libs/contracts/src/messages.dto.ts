import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { EVENT_KINDS } from './events';
import { IsAnyUuid } from './validators';

/** Every kind on the domain exchange: the public events and the internal messages. */
export const DOMAIN_KINDS: readonly string[] = [...EVENT_KINDS, 'contact.erased', 'knowledge.changed'];

/**
 * The envelope of a domain message (`DomainMessage`) as a consumer checks it before acting on it.
 * The timestamp's text is checked by the consumer (PostgreSQL's range of offsets), the data per kind.
 */
export class DomainMessageDto {
  @IsAnyUuid()
  id!: string;

  @IsAnyUuid()
  account_id!: string;

  @IsIn(DOMAIN_KINDS, { message: '$property is unknown' })
  kind!: string;

  @IsString({ message: '$property is not a timestamp with a zone' })
  at!: string;

  @IsObject({ message: '$property is not an object' })
  data!: Record<string, unknown>;
}

/** A public event as events-api publishes it (`PublicEvent`); syntax only, so that a kind added later still passes. */
export class RecordedPublicEventDto {
  @IsInt({ message: '$property must be a positive integer' })
  @Min(1, { message: '$property must be a positive integer' })
  id!: number;

  @Matches(/^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/, { message: '$property must be an event kind' })
  event!: string;

  @IsString({ message: '$property must be a timestamp' })
  at!: string;

  @IsObject({ message: '$property must be an object' })
  data!: Record<string, unknown>;
}

/** What events-api publishes on the events exchange once an event has its public id (`RecordedEvent`). */
export class RecordedEventDto {
  @IsAnyUuid({ message: '$property must be a UUID' })
  account_id!: string;

  @IsObject({ message: '$property must be an object' })
  @ValidateNested()
  @Type(() => RecordedPublicEventDto)
  event!: RecordedPublicEventDto;
}
