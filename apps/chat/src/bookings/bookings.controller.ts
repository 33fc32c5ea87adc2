import { Body, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { BookingResponse, BookingsPage, CreateBookingDto, GatewayContext, ListBookingsQueryDto, UpdateBookingDto } from '@svc/contracts';
import { Caller } from '@svc/platform';
import { pathId } from '../inbox/inbox.controller';
import { InternalChatController } from '../settings/internal-call.guard';
import { BookingsService } from './bookings.service';

/** Bookings for the console and the MCP server (not routed by the gateway); every one the signed account's. */
@InternalChatController('bookings')
export class BookingsController {
  constructor(private readonly bookings: BookingsService) {}

  @Get()
  list(@Caller() caller: GatewayContext, @Query() query: ListBookingsQueryDto): Promise<BookingsPage> {
    return this.bookings.list(caller.account.id, query, caller.requestId);
  }

  @Post()
  create(@Caller() caller: GatewayContext, @Body() body: CreateBookingDto): Promise<BookingResponse> {
    return this.bookings.create(caller.account.id, body, caller.requestId);
  }

  @Patch(':id')
  update(@Caller() caller: GatewayContext, @Param('id') id: string, @Body() body: UpdateBookingDto): Promise<BookingResponse> {
    return this.bookings.update(caller.account.id, pathId(id, 'booking'), body.status, caller.requestId);
  }
}
