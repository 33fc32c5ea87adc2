import { Inject, Injectable } from '@nestjs/common';
import { DomainMessage, EVENTS_PAGE_DEFAULT, EventKind, EventsQueryDto, isUuid } from '@svc/contracts';
import { ApiError, APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import { AppendBatcher } from './append-batcher';
import { EventsRepository } from './events.repository';

/** The feed of an account: what the controllers read and the domain consumer records and erases. */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly batcher: AppendBatcher,
    @Inject(APP_LOGGER) private readonly logger: Logger,
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

  /** `contact.erased`: the customer's personal data leaves every retained event of the account. */
  async eraseContact(accountId: string, svcId: number): Promise<void> {
    const erased = await this.events.eraseContact(accountId, svcId);
    this.logger.info({ account_id: accountId, events: erased }, 'erased a customer from retained events');
  }
}
