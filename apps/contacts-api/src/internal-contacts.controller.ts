import { Body, Controller, HttpCode, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  ChatConsentDto,
  ChatConsentResponse,
  ChatCustomerDetailsDto,
  ConfirmContactDto,
  ConfirmContactResponse,
  ConsentIdParams,
  ContactRefParams,
  ContactSvcIdParams,
  EventContact,
  GatewayContext,
  INTERNAL_ROUTES,
  InternalConsent,
  InternalConsentsResponse,
  WhatsappStopDto,
  WhatsappStopResponse,
  WithdrawConsentDto,
} from '@svc/contracts';
import { Caller, InternalCallers, Route } from '@svc/platform';
import { CustomersService } from './customers.service';

/** Lookups and the chat's writes for other services, the account from the signed context; never routed by the gateway. */
@ApiExcludeController()
@Controller()
@InternalCallers('chat')
export class InternalContactsController {
  constructor(private readonly customers: CustomersService) {}

  @Route(INTERNAL_ROUTES.contacts.byRef)
  @InternalCallers('chat', 'identity-issuer')
  byRef(@Caller() caller: GatewayContext, @Param() { ref }: ContactRefParams): Promise<EventContact> {
    return this.customers.contactByRef(caller.account.id, ref);
  }

  @Route(INTERNAL_ROUTES.contacts.bySvcId)
  @InternalCallers('chat', 'identity-issuer', 'console')
  bySvcId(@Caller() caller: GatewayContext, @Param() { svcId }: ContactSvcIdParams): Promise<EventContact> {
    return this.customers.contactBySvcId(caller.account.id, svcId);
  }

  /** 201: a chat-met customer (ref null, a new svc_id, no details). */
  @Route(INTERNAL_ROUTES.contacts.chatMet)
  createChatMet(@Caller() caller: GatewayContext): Promise<EventContact> {
    return this.customers.createChatMet(caller.account.id);
  }

  /** 200: details a chat-met customer left in the chat; a customer with a ref is left as it is. */
  @Route(INTERNAL_ROUTES.contacts.update)
  saveChatDetails(
    @Caller() caller: GatewayContext,
    @Param() { svcId }: ContactSvcIdParams,
    @Body() body: ChatCustomerDetailsDto,
  ): Promise<EventContact> {
    return this.customers.saveChatDetails(caller.account.id, svcId, body, caller.requestId);
  }

  /** 201: a consent given in the chat, with its `consent.granted` event. */
  @Route(INTERNAL_ROUTES.contacts.addConsent)
  recordChatConsent(
    @Caller() caller: GatewayContext,
    @Param() { svcId }: ContactSvcIdParams,
    @Body() body: ChatConsentDto,
  ): Promise<ChatConsentResponse> {
    return this.customers.recordChatConsent(caller.account.id, svcId, body);
  }

  /** 200: the customer's consents with their ids (the console names one to withdraw). */
  @Route(INTERNAL_ROUTES.contacts.consents)
  @InternalCallers('chat', 'console', 'mcp-server')
  consents(@Caller() caller: GatewayContext, @Param() { svcId }: ContactSvcIdParams): Promise<InternalConsentsResponse> {
    return this.customers.consentsOf(caller.account.id, svcId);
  }

  /** 200: the consent, withdrawn now with its `consent.withdrawn` event; already withdrawn → as it is, no event. */
  @Route(INTERNAL_ROUTES.contacts.withdrawConsent)
  @InternalCallers('chat', 'console', 'mcp-server')
  @HttpCode(200)
  withdrawConsent(
    @Caller() caller: GatewayContext,
    @Param() { svcId, consentId }: ConsentIdParams,
    @Body() body: WithdrawConsentDto,
  ): Promise<InternalConsent> {
    return this.customers.withdrawConsent(caller.account.id, svcId, consentId, body);
  }

  /** 200 `{withdrawn}`: STOP from a WhatsApp number withdraws the whatsapp consents of its customers. */
  @Route(INTERNAL_ROUTES.contacts.whatsappStop)
  @HttpCode(200)
  whatsappStop(@Caller() caller: GatewayContext, @Body() body: WhatsappStopDto): Promise<WhatsappStopResponse> {
    return this.customers.whatsappStop(caller.account.id, body);
  }

  /** 200: the customer proved their email or phone (`contact.confirmed`); 409 when it is no longer theirs. */
  @Route(INTERNAL_ROUTES.contacts.confirm)
  @HttpCode(200)
  confirm(
    @Caller() caller: GatewayContext,
    @Param() { svcId }: ContactSvcIdParams,
    @Body() body: ConfirmContactDto,
  ): Promise<ConfirmContactResponse> {
    return this.customers.confirm(caller.account.id, svcId, body, caller.requestId);
  }
}
