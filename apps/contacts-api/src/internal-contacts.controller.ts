import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
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
  InternalConsent,
  InternalConsentsResponse,
  WhatsappStopDto,
  WhatsappStopResponse,
  WithdrawConsentDto,
} from '@svc/contracts';
import { Caller } from '@svc/platform';
import { ContactsService } from './contacts.service';

/**
 * Lookups for other services (identity-issuer, the chat) and the chat's writes, not public: the gateway does not route here. The
 * caller signs a context with `InternalAuth` like the gateway does; the account comes from it.
 * 200 with the customer without consents (the events' `contact` shape), or 404 `not_found`.
 */
@ApiExcludeController()
@Controller('internal/contacts')
export class InternalContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get('by-ref/:ref')
  byRef(@Caller() caller: GatewayContext, @Param() { ref }: ContactRefParams): Promise<EventContact> {
    return this.contacts.contactByRef(caller.account.id, ref);
  }

  @Get('by-svc-id/:svcId')
  bySvcId(@Caller() caller: GatewayContext, @Param() { svcId }: ContactSvcIdParams): Promise<EventContact> {
    return this.contacts.contactBySvcId(caller.account.id, svcId);
  }

  /** 201: a chat-met customer (ref null, a new svc_id, no details). */
  @Post('chat-met')
  createChatMet(@Caller() caller: GatewayContext): Promise<EventContact> {
    return this.contacts.createChatMet(caller.account.id);
  }

  /** 200: details a chat-met customer left in the chat; a customer with a ref is left as it is. */
  @Patch('by-svc-id/:svcId')
  saveChatDetails(
    @Caller() caller: GatewayContext,
    @Param() { svcId }: ContactSvcIdParams,
    @Body() body: ChatCustomerDetailsDto,
  ): Promise<EventContact> {
    return this.contacts.saveChatDetails(caller.account.id, svcId, body);
  }

  /** 201: a consent given in the chat, with its `consent.granted` event. */
  @Post('by-svc-id/:svcId/consents')
  recordChatConsent(
    @Caller() caller: GatewayContext,
    @Param() { svcId }: ContactSvcIdParams,
    @Body() body: ChatConsentDto,
  ): Promise<ChatConsentResponse> {
    return this.contacts.recordChatConsent(caller.account.id, svcId, body);
  }

  /** 200: the customer's consents with their ids (the console names one to withdraw). */
  @Get('by-svc-id/:svcId/consents')
  consents(@Caller() caller: GatewayContext, @Param() { svcId }: ContactSvcIdParams): Promise<InternalConsentsResponse> {
    return this.contacts.consentsOf(caller.account.id, svcId);
  }

  /** 200: the consent, withdrawn now with its `consent.withdrawn` event; already withdrawn → as it is, no event. */
  @Post('by-svc-id/:svcId/consents/:consentId/withdraw')
  @HttpCode(200)
  withdrawConsent(
    @Caller() caller: GatewayContext,
    @Param() { svcId, consentId }: ConsentIdParams,
    @Body() body: WithdrawConsentDto,
  ): Promise<InternalConsent> {
    return this.contacts.withdrawConsent(caller.account.id, svcId, consentId, body);
  }

  /** 200 `{withdrawn}`: STOP from a WhatsApp number withdraws the whatsapp consents of its customers. */
  @Post('whatsapp-stop')
  @HttpCode(200)
  whatsappStop(@Caller() caller: GatewayContext, @Body() body: WhatsappStopDto): Promise<WhatsappStopResponse> {
    return this.contacts.whatsappStop(caller.account.id, body);
  }

  /** 200: the customer proved their email or phone (`contact.confirmed`); 409 when it is no longer theirs. */
  @Post('by-svc-id/:svcId/confirm')
  @HttpCode(200)
  confirm(
    @Caller() caller: GatewayContext,
    @Param() { svcId }: ContactSvcIdParams,
    @Body() body: ConfirmContactDto,
  ): Promise<ConfirmContactResponse> {
    return this.contacts.confirm(caller.account.id, svcId, body);
  }
}
