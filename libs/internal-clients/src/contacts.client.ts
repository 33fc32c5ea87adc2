import type * as contracts from '@svc/contracts';
import { InternalClientOptions, InternalHttpClient, InternalResponse } from './internal-http';

export function isContact(value: unknown): value is contracts.EventContact {
  const c = value as Partial<contracts.EventContact> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    Number.isSafeInteger(c.svc_id) &&
    (c.ref === null || typeof c.ref === 'string') &&
    typeof c.name === 'string' &&
    (c.email === null || typeof c.email === 'string') &&
    typeof c.email_confirmed === 'boolean' &&
    (c.phone === null || typeof c.phone === 'string') &&
    typeof c.phone_confirmed === 'boolean'
  );
}

/** Customers through contacts-api's internal routes; contacts-api writes their events itself. */
export class ContactsClient {
  private readonly http: InternalHttpClient;

  constructor(options: Omit<InternalClientOptions, 'upstream'>) {
    this.http = new InternalHttpClient({ ...options, upstream: 'contacts-api' });
  }

  /** The account's customer with this ref, or null. */
  byRef(ref: string, context: contracts.GatewayContext): Promise<contracts.EventContact | null> {
    return this.contactOrNull(this.http.call('GET', `/internal/contacts/by-ref/${encodeURIComponent(ref)}`, context), context);
  }

  /** The account's customer with this svc_id, or null (unknown or erased). */
  bySvcId(svcId: number, context: contracts.GatewayContext): Promise<contracts.EventContact | null> {
    return this.contactOrNull(this.http.call('GET', `/internal/contacts/by-svc-id/${svcId}`, context), context);
  }

  /** A new chat-met customer (ref null, a new svc_id, no details). */
  async createChatMet(context: contracts.GatewayContext): Promise<contracts.EventContact> {
    const contact = await this.contactOrNull(this.http.call('POST', '/internal/contacts/chat-met', context, {}), context);
    if (!contact) throw this.http.unavailable(context, 'chat-met customer not created');
    return contact;
  }

  /** Stores details a chat-met customer left; null when the customer is gone (erased). */
  saveChatDetails(
    svcId: number,
    details: contracts.ChatCustomerDetailsDto,
    context: contracts.GatewayContext,
  ): Promise<contracts.EventContact | null> {
    return this.contactOrNull(this.http.call('PATCH', `/internal/contacts/by-svc-id/${svcId}`, context, details), context);
  }

  /** Records a consent given in the chat (contacts-api emits `consent.granted`); null when the customer is gone. */
  async recordChatConsent(
    svcId: number,
    consent: contracts.ChatConsentDto,
    context: contracts.GatewayContext,
  ): Promise<contracts.ChatConsentResponse | null> {
    const response = await this.http.call('POST', `/internal/contacts/by-svc-id/${svcId}/consents`, context, consent);
    if (response.status === 404) return null;
    const body = response.body as Partial<contracts.ChatConsentResponse> | undefined;
    if (response.status !== 201 || !isContact(body?.contact) || typeof body?.consent !== 'object') {
      throw this.http.unavailable(context, `status ${response.status}`);
    }
    return body as contracts.ChatConsentResponse;
  }

  /** The customer's consents with their ids; null when the customer is unknown. */
  async consents(svcId: number, context: contracts.GatewayContext): Promise<contracts.InternalConsentsResponse | null> {
    const response = await this.http.call('GET', `/internal/contacts/by-svc-id/${svcId}/consents`, context);
    if (response.status === 404) return null;
    const body = response.body as Partial<contracts.InternalConsentsResponse> | undefined;
    if (response.status !== 200 || !Array.isArray(body?.consents)) throw this.http.unavailable(context, `status ${response.status}`);
    return body as contracts.InternalConsentsResponse;
  }

  /** Withdraws one consent (contacts-api emits `consent.withdrawn` once); null when unknown (or another account's). */
  async withdrawConsent(
    svcId: number,
    consentId: number,
    body: contracts.WithdrawConsentDto,
    context: contracts.GatewayContext,
  ): Promise<contracts.InternalConsent | null> {
    const response = await this.http.call('POST', `/internal/contacts/by-svc-id/${svcId}/consents/${consentId}/withdraw`, context, body);
    if (response.status === 404) return null;
    const consent = response.body as Partial<contracts.InternalConsent> | undefined;
    if (response.status !== 200 || typeof consent?.id !== 'number' || typeof consent.purpose !== 'string')
      throw this.http.unavailable(context, `status ${response.status}`);
    return consent as contracts.InternalConsent;
  }

  /** STOP from a WhatsApp number: how many consents were withdrawn. */
  async whatsappStop(body: contracts.WhatsappStopDto, context: contracts.GatewayContext): Promise<contracts.WhatsappStopResponse> {
    const response = await this.http.call('POST', '/internal/contacts/whatsapp-stop', context, body);
    const answer = response.body as Partial<contracts.WhatsappStopResponse> | undefined;
    if (response.status !== 200 || typeof answer?.withdrawn !== 'number') throw this.http.unavailable(context, `status ${response.status}`);
    return { withdrawn: answer.withdrawn };
  }

  /** Confirms a proven email or phone; `gone` if the customer is erased, `changed` if the value is no longer theirs. */
  async confirm(
    svcId: number,
    body: contracts.ConfirmContactDto,
    context: contracts.GatewayContext,
  ): Promise<contracts.ConfirmContactResponse | 'gone' | 'changed'> {
    const response = await this.http.call('POST', `/internal/contacts/by-svc-id/${svcId}/confirm`, context, body);
    if (response.status === 404) return 'gone';
    if (response.status === 409) return 'changed';
    const answer = response.body as Partial<contracts.ConfirmContactResponse> | undefined;
    if (response.status !== 200 || !isContact(answer?.contact) || typeof answer?.changed !== 'boolean')
      throw this.http.unavailable(context, `status ${response.status}`);
    return answer as contracts.ConfirmContactResponse;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async contactOrNull(call: Promise<InternalResponse>, context: contracts.GatewayContext): Promise<contracts.EventContact | null> {
    const response = await call;
    if (response.status === 404) return null;
    if ((response.status !== 200 && response.status !== 201) || !isContact(response.body))
      throw this.http.unavailable(context, `status ${response.status}`);
    return response.body;
  }
}
