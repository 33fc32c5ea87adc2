import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EmailConfirmationService } from './email-confirmation.service';

/** The page a confirmation email's link opens (`{app_url}/chat/confirm/<token>`). */
@ApiExcludeController()
@Controller('chat/confirm')
export class EmailConfirmationController {
  constructor(private readonly confirmations: EmailConfirmationService) {}

  /** The page with the "Confirm" button: opening the link changes nothing. */
  @Get(':token')
  async show(@Param('token') token: string, @Res() reply: FastifyReply): Promise<FastifyReply> {
    return this.send(reply, await this.confirmations.show(token));
  }

  /** The button: confirms the address once. */
  @Post(':token')
  async confirm(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    return this.send(reply, await this.confirmations.confirm(token, request.id));
  }

  private send(reply: FastifyReply, page: { status: number; html: string }): FastifyReply {
    return reply
      .code(page.status)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(page.html);
  }
}
