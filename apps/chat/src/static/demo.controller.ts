import { Controller, Get, Header, Inject, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '@svc/platform';
import { DemoShop } from './demo-shop';

/**
 * `GET /chat/demo`: a sample shop page with the widget, only where CHAT_DEMO_KEY is set (`npm
 * start` sets it; production never does: then it is 404). `?as=anonymous` leaves the pass out.
 */
@ApiExcludeController()
@Controller('chat')
export class DemoController {
  constructor(@Inject(DemoShop) private readonly demo: DemoShop) {}

  @Get('demo')
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  page(@Query('as') as: string | undefined): Promise<string> {
    if (!this.demo.enabled) throw new ApiError('not_found', 'There is no demo page here (CHAT_DEMO_KEY is not set).');
    return this.demo.page(as === 'anonymous');
  }
}
