import { Injectable } from '@nestjs/common';
import {
  canonicalLanguageTag,
  ChatConsentDto,
  ChatConsentResponse,
  ChatCustomerDetailsDto,
  ConfirmContactDto,
  ConfirmContactResponse,
  ContactListResponseDto,
  ContactResponseDto,
  ErrorDetail,
  EventContact,
  EventConversation,
  FindContactsQueryDto,
  InternalConsent,
  InternalConsentsResponse,
  INVALID_FIELDS,
  StoredConsent,
  toConsentResponse,
  toContactResponse,
  UpsertContactDto,
  WhatsappStopDto,
  WhatsappStopResponse,
  WithdrawConsentDto,
} from '@svc/contracts';
import { domainMessage } from '@svc/messaging';
import { ApiError } from '@svc/platform';
import { ChatModel } from './chat-model';
import { consentProblems, mergeCustomer, NEW_CUSTOMER, planConsents } from './customer-rules';
import {
  CustomersRepository,
  CustomersTransaction,
  CustomerLookup,
  IdentifiedConsent,
  RetryTransaction,
  WHATSAPP_PURPOSES,
} from './customers.repository';

export interface UpsertResult {
  created: boolean;
  contact: ContactResponseDto;
}

const invalid = (details: ErrorDetail[]) => new ApiError('validation_failed', INVALID_FIELDS, details);
const unknownSvcId = (svcId: number) => new ApiError('not_found', `There is no customer with svc_id ${svcId}.`);
const unknownConsent = (svcId: number, consentId: number) =>
  new ApiError('not_found', `The customer with svc_id ${svcId} has no consent ${consentId}.`);
const internalConsent = ({ id, consent }: IdentifiedConsent): InternalConsent => ({ id, ...toConsentResponse(consent) });
/** The `conversation` of an event, exactly its three fields. */
const eventConversation = (conversation: EventConversation | null): EventConversation | null =>
  conversation && { id: conversation.id, channel: conversation.channel, url: conversation.url };
const unknownRef = (ref: string) => new ApiError('not_found', `There is no customer with ref ${JSON.stringify(ref)}.`);

@Injectable()
export class CustomersService {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly chatModel: ChatModel,
  ) {}

  /**
   * Runs `work` in one transaction (again from the start when it loses a race); once it committed,
   * and before the caller hears of it, the chat's model of customers shows what it changed (ADR 014).
   */
  private async write<T>(accountId: string, requestId: string, work: (tx: CustomersTransaction) => Promise<T>): Promise<T> {
    let committed: CustomersTransaction | undefined;
    const result = await this.customers.transaction((tx) => {
      committed = tx;
      return work(tx);
    });
    if (committed) await this.chatModel.tell(accountId, committed.modelChanges, requestId);
    return result;
  }

  /** PUT /contacts/{ref} in one transaction, the customer locked first (concurrent PUTs apply in turn). */
  async upsert(accountId: string, ref: string, dto: UpsertContactDto, requestId = ''): Promise<UpsertResult> {
    const { svc_id: svcId, consents: sent = [], ...changes } = dto;
    const consentIssues = consentProblems(sent);
    // Attaching a svc_id is a check of the resource (404, 409): bad fields are answered before it.
    if (consentIssues.length > 0 && svcId !== undefined) throw invalid(consentIssues);

    return this.write(accountId, requestId, async (tx) => {
      const existing = svcId === undefined ? await tx.lockByRef(accountId, ref) : await this.attachable(tx, accountId, ref, svcId);
      const merged = mergeCustomer(existing ?? NEW_CUSTOMER, changes);
      // Every bad field at once: the consents' and the customer's (which needs the stored customer).
      const problems = [...consentIssues, ...merged.problems];
      if (problems.length > 0) throw invalid(problems);

      let customer = existing ?? (await tx.insert(accountId, ref, merged.fields));
      // Another PUT of this new ref committed first: start again, now as an update of its customer.
      if (!customer) throw new RetryTransaction();
      const stored = existing ? await tx.consentsOf(accountId, existing.svc_id) : [];
      const plan = planConsents(stored, sent);
      await tx.insertConsents(accountId, customer.svc_id, plan.insert);
      await tx.withdrawConsents(accountId, customer.svc_id, plan.withdraw);
      const consentsChanged = plan.insert.length > 0 || plan.withdraw.length > 0;
      if (existing && (merged.changed || consentsChanged || existing.ref !== ref)) {
        customer = await tx.update(accountId, existing.svc_id, ref, merged.fields);
      }
      const consents = consentsChanged ? await tx.consentsOf(accountId, customer.svc_id) : stored;
      return { created: !existing, contact: toContactResponse(customer, consents) };
    });
  }

  /** The chat-met customer `svc_id` names, locked, if `{ref}` may be attached to it (else 404 or 409). */
  private async attachable(tx: CustomersTransaction, accountId: string, ref: string, svcId: number): Promise<EventContact> {
    const customer = await tx.lockBySvcId(accountId, svcId);
    if (!customer) throw new ApiError('not_found', `There is no customer with svc_id ${svcId}.`);
    if (customer.ref === ref) return customer;
    if (customer.ref !== null) {
      throw new ApiError(
        'conflict',
        `The customer with svc_id ${svcId} already has another ref; it cannot be attached to ${JSON.stringify(ref)}.`,
      );
    }
    if (await tx.byRef(accountId, ref)) {
      throw new ApiError(
        'conflict',
        `The ref ${JSON.stringify(ref)} already names another customer; it cannot be attached to svc_id ${svcId}.`,
      );
    }
    return customer;
  }

  async get(accountId: string, ref: string): Promise<ContactResponseDto> {
    const [found] = await this.customers.withConsents(accountId, { by: 'ref', value: ref });
    if (!found) throw unknownRef(ref);
    return toContactResponse(found.contact, found.consents);
  }

  async find(accountId: string, query: FindContactsQueryDto): Promise<ContactListResponseDto> {
    // The query DTO lets exactly one of the two through.
    const lookup: CustomerLookup =
      query.email !== undefined ? { by: 'email', value: query.email } : { by: 'phone', value: query.phone as string };
    const found = await this.customers.withConsents(accountId, lookup);
    return { contacts: found.map(({ contact, consents }) => toContactResponse(contact, consents)) };
  }

  /** DELETE /contacts/{ref}: the customer, their consents and the `contact.erased` message, in one transaction. */
  async erase(accountId: string, ref: string, requestId = ''): Promise<void> {
    await this.write(accountId, requestId, async (tx) => {
      if (!(await tx.erase(accountId, ref))) throw unknownRef(ref);
    });
  }

  /** For other services (identity-issuer): the customer without consents, by ref or by svc_id. */
  async contactByRef(accountId: string, ref: string): Promise<EventContact> {
    const customer = await this.customers.byRef(accountId, ref);
    if (!customer) throw unknownRef(ref);
    return customer;
  }

  async contactBySvcId(accountId: string, svcId: number): Promise<EventContact> {
    const customer = await this.customers.bySvcId(accountId, svcId);
    if (!customer) throw unknownSvcId(svcId);
    return customer;
  }

  /** For the chat: an anonymous visitor's first message makes them a customer (ref null, no details). */
  createChatMet(accountId: string): Promise<EventContact> {
    return this.write(accountId, '', (tx) => tx.insertChatMet(accountId));
  }

  /** For the chat: details a chat-met customer left, unconfirmed; a customer with a ref is left as it is. */
  saveChatDetails(accountId: string, svcId: number, details: ChatCustomerDetailsDto, requestId = ''): Promise<EventContact> {
    return this.write(accountId, requestId, async (tx) => {
      const customer = await tx.lockBySvcId(accountId, svcId);
      if (!customer) throw unknownSvcId(svcId);
      if (customer.ref !== null) return customer;
      const merged = mergeCustomer(customer, details);
      if (merged.problems.length > 0) throw invalid(merged.problems);
      return merged.changed ? tx.update(accountId, svcId, null, merged.fields) : customer;
    });
  }

  /** For the chat: a consent given there, with its `consent.granted` event, in one transaction. */
  recordChatConsent(accountId: string, svcId: number, dto: ChatConsentDto): Promise<ChatConsentResponse> {
    return this.write(accountId, '', async (tx) => {
      const contact = await tx.lockBySvcId(accountId, svcId);
      if (!contact) throw unknownSvcId(svcId);
      const stored: StoredConsent = {
        purpose: dto.purpose,
        granted: true,
        text: dto.text,
        lang: dto.lang === undefined ? null : canonicalLanguageTag(dto.lang),
        given_at: await tx.now(),
        source: 'chat',
        withdrawn_at: null,
        withdrawn_by: null,
        origin: 'chat',
      };
      await tx.insertConsents(accountId, svcId, [stored]);
      const consent = toConsentResponse(stored);
      const { id, channel, url } = dto.conversation;
      await tx.enqueueEvents([domainMessage('consent.granted', accountId, { contact, consent, conversation: { id, channel, url } })]);
      return { contact, consent };
    });
  }
  /** For the console: a customer's consents with their ids. */
  async consentsOf(accountId: string, svcId: number): Promise<InternalConsentsResponse> {
    await this.contactBySvcId(accountId, svcId);
    const consents = await this.customers.consentsWithIds(accountId, svcId);
    return { consents: consents.map(internalConsent) };
  }

  /** Withdraws one consent now with its `consent.withdrawn` event; one not active is returned as is, no event. */
  withdrawConsent(accountId: string, svcId: number, consentId: number, dto: WithdrawConsentDto): Promise<InternalConsent> {
    return this.write(accountId, '', async (tx) => {
      const contact = await tx.lockBySvcId(accountId, svcId);
      if (!contact) throw unknownConsent(svcId, consentId);
      const withdrawn = await tx.withdrawById(accountId, svcId, consentId, dto.withdrawn_by);
      if (!withdrawn) {
        const existing = await tx.consentById(accountId, svcId, consentId);
        if (!existing) throw unknownConsent(svcId, consentId);
        return internalConsent(existing);
      }
      const consent = toConsentResponse(withdrawn.consent);
      await tx.enqueueEvents([
        domainMessage('consent.withdrawn', accountId, { contact, consent, conversation: eventConversation(dto.conversation) }),
      ]);
      return internalConsent(withdrawn);
    });
  }

  /** For the chat: WhatsApp STOP from `number` withdraws every active WhatsApp consent of that phone, in one transaction. */
  whatsappStop(accountId: string, dto: WhatsappStopDto): Promise<WhatsappStopResponse> {
    return this.write(accountId, '', async (tx) => {
      const conversation = eventConversation(dto.conversation);
      let withdrawn = 0;
      for (const contact of await tx.lockByPhone(accountId, dto.number)) {
        const consents = await tx.withdrawActive(accountId, contact.svc_id, WHATSAPP_PURPOSES, 'customer');
        await tx.enqueueEvents(
          consents.map(({ consent }) =>
            domainMessage('consent.withdrawn', accountId, { contact, consent: toConsentResponse(consent), conversation }),
          ),
        );
        withdrawn += consents.length;
      }
      return { withdrawn };
    });
  }

  /** For the chat: a proven email or phone is confirmed (`contact.confirmed`) while it is still theirs, else 409. */
  confirm(accountId: string, svcId: number, dto: ConfirmContactDto, requestId = ''): Promise<ConfirmContactResponse> {
    return this.write(accountId, requestId, async (tx) => {
      const contact = await tx.lockBySvcId(accountId, svcId);
      if (!contact) throw unknownSvcId(svcId);
      const current = dto.confirmed === 'email' ? contact.email : contact.phone;
      const same =
        current !== null && (dto.confirmed === 'email' ? current.toLowerCase() === dto.value.toLowerCase() : current === dto.value);
      if (!same) throw new ApiError('conflict', `The customer's ${dto.confirmed} is no longer the one that was proven.`);
      if (dto.confirmed === 'email' ? contact.email_confirmed : contact.phone_confirmed) return { contact, changed: false };
      const confirmed = await tx.markConfirmed(accountId, svcId, dto.confirmed);
      const conversation = eventConversation(dto.conversation) as EventConversation;
      await tx.enqueueEvents([
        domainMessage('contact.confirmed', accountId, { contact: confirmed, confirmed: dto.confirmed, conversation }),
      ]);
      return { contact: confirmed, changed: true };
    });
  }
}
