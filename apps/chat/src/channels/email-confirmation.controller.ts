import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EmailConfirmationService } from './email-confirmation.service';

/** The page a confirmation email's link opens (`{app_url}/chat/confirm/<token>`). */
@ApiExcludeController()
@Controller('chat/confirm')
export class EmailConfirmationController {
  constructor(private readonly confirmations: EmailConfirmationService) {}

  @Get(':token')
  async open(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const page = await this.confirmations.open(token, request.id);
    return reply
      .code(page.status)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(page.html);
  }
}
