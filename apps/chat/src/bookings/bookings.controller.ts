import { Body, Param, Query } from '@nestjs/common';
import {
  BookingResponse,
  BookingsPage,
  CreateBookingDto,
  GatewayContext,
  INTERNAL_ROUTES,
  ListBookingsQueryDto,
  UpdateBookingDto,
} from '@svc/contracts';
import { Caller, Route } from '@svc/platform';
import { pathId } from '../inbox/inbox.controller';
import { InternalChatController } from '../settings/internal-call.guard';
import { BookingsService } from './bookings.service';

/** Bookings for the console and the MCP server (not routed by the gateway); every one the signed account's. */
@InternalChatController('console', 'mcp-server')
export class BookingsController {
  constructor(private readonly bookings: BookingsService) {}

  @Route(INTERNAL_ROUTES.chat.bookings)
  list(@Caller() caller: GatewayContext, @Query() query: ListBookingsQueryDto): Promise<BookingsPage> {
    return this.bookings.list(caller.account.id, query, caller.requestId);
  }

  @Route(INTERNAL_ROUTES.chat.createBooking)
  create(@Caller() caller: GatewayContext, @Body() body: CreateBookingDto): Promise<BookingResponse> {
    return this.bookings.create(caller.account.id, body, caller.requestId);
  }

  @Route(INTERNAL_ROUTES.chat.updateBooking)
  update(@Caller() caller: GatewayContext, @Param('id') id: string, @Body() body: UpdateBookingDto): Promise<BookingResponse> {
    return this.bookings.update(caller.account.id, pathId(id, 'booking'), body.status, caller.requestId);
  }
}
