import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ContactRefParams, ContactSvcIdParams, EventContact, GatewayContext } from '@svc/contracts';
import { Caller } from '@svc/platform';
import { ContactsService } from './contacts.service';

/**
 * Lookups for other services (identity-issuer), not public: the gateway does not route here. The
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
}
