import { Injectable } from '@nestjs/common';
import { DomainMessage, EVENTS_PAGE_DEFAULT, EventKind, EventsQueryDto, isUuid } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { AppendBatcher } from './append-batcher';
import { EventsRepository } from './events.repository';

/** The feed of an account: what the controllers read, the domain consumer records and erasures blank. */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly batcher: AppendBatcher,
  ) {}

  /** A page of the feed as the JSON text of an `EventsPageDto` (written by PostgreSQL, see EventsRepository.page). */
  page(accountId: string, query: EventsQueryDto): Promise<string> {
    return this.events.page(accountId, query.after ?? 0, query.limit ?? EVENTS_PAGE_DEFAULT);
  }

  /** The feed id of the account's event with this producer UUID; `not_found` until it is recorded. */
  async idOf(accountId: string, uuid: string): Promise<{ id: number }> {
    const id = isUuid(uuid) ? await this.events.idOf(accountId, uuid) : undefined;
    if (id === undefined) throw new ApiError('not_found', `No event ${uuid} is recorded (yet).`);
    return { id };
  }

  /** Appends a public event (batched with the others being handled); resolves once it is committed. */
  record(message: DomainMessage<EventKind>): Promise<void> {
    return this.batcher.append(message);
  }

  /** `contact.erased`: the customer's personal data leaves every retained event of the account; how many events changed. */
  eraseContact(accountId: string, svcId: number): Promise<number> {
    return this.events.eraseContact(accountId, svcId);
  }
}
