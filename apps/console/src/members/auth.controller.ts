import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { InvitedMemberResponse, InviteMemberDto, RemoveMemberDto, SetPasswordDto, SignInDto } from '@svc/contracts';
import { APP_CONFIG, Caller } from '@svc/platform';
import type { GatewayContext } from '@svc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleConfig } from '../console.config';
import { Upstreams } from '../upstreams/upstreams';
import { SessionRow } from './members.repository';
import { MembersService, MemberView, NewSession } from './members.service';
import { ConsoleInternalGuard, OwnerGuard, SessionGuard } from './session.guard';
import { checkOrigin, clearSessionCookie, cookie, Member, SESSION_COOKIE, setSessionCookie } from './session';

/** What sign-in and set-password answer: the member now signed in (the session is in its cookie). */
type SignedIn = { user: { id: string; email: string } };

/** Sign-in, set-password, sign-out and the page's session (`/console/v1/…`, for the console's own page). */
@ApiExcludeController()
@Controller('console/v1')
export class AuthController {
  private readonly secure: boolean;
  private readonly origin: string;

  constructor(
    private readonly members: MembersService,
    private readonly upstreams: Upstreams,
    @Inject(APP_CONFIG) private readonly config: ConsoleConfig,
  ) {
    this.secure = new URL(config.APP_URL).protocol === 'https:';
    this.origin = new URL(config.APP_URL).origin;
  }

  @Post('sign-in')
  @HttpCode(200)
  signIn(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: SignInDto): Promise<SignedIn> {
    return this.start(request, reply, () => this.members.signIn(body.email, body.password, request.ip));
  }

  @Post('set-password')
  @HttpCode(200)
  setPassword(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: SetPasswordDto,
  ): Promise<SignedIn> {
    return this.start(request, reply, () => this.members.setPassword(body.token, body.password));
  }

  @Post('sign-out')
  @HttpCode(204)
  @UseGuards(SessionGuard)
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const token = cookie(request, SESSION_COOKIE);
    if (token) await this.members.signOut(token);
    clearSessionCookie(reply, this.secure);
  }

  /** What the page needs to start: who is signed in, their account, the CSRF token for writes. */
  @Get('session')
  @UseGuards(SessionGuard)
  async session(@Req() request: FastifyRequest, @Member() member: SessionRow) {
    const account = await this.upstreams.account(member.account_id, request.id);
    return {
      user: { id: member.member_id, email: member.email, role: member.role },
      account,
      csrf_token: member.csrf_token,
      app_url: this.config.APP_URL,
    };
  }

  @Get('members')
  @UseGuards(SessionGuard)
  listMembers(@Member() member: SessionRow): Promise<{ members: MemberView[] }> {
    return this.members.listMembers(member.account_id).then((members) => ({ members }));
  }

  /** Invite (owners): the new member's one-time set-password link (24 h), to pass on to them; again for a pending invitation. */
  @Post('members')
  @UseGuards(OwnerGuard)
  invite(@Member() member: SessionRow, @Body() body: InviteMemberDto): Promise<InvitedMemberResponse> {
    return this.members.invite(member.account_id, body.email, body.role ?? 'agent');
  }

  /** Remove (owners): the member and every session of theirs, at once; never the account's last owner. */
  @Delete('members/:id')
  @HttpCode(204)
  @UseGuards(OwnerGuard)
  async remove(@Member() member: SessionRow, @Param('id') id: string): Promise<void> {
    await this.members.remove(member.account_id, { id });
  }

  /** A new session, from the console's own page only: its cookie set, its member answered. */
  private async start(request: FastifyRequest, reply: FastifyReply, open: () => Promise<NewSession>): Promise<SignedIn> {
    checkOrigin(request, this.origin);
    const { token, member } = await open();
    setSessionCookie(reply, token, this.config.SESSION_TTL_HOURS * 3600, this.secure);
    return { user: { id: member.id, email: member.email } };
  }
}

/** `admin user create` and `remove`: members of the account in the signed context (audience `console`). */
@ApiExcludeController()
@Controller('internal/console')
@UseGuards(ConsoleInternalGuard)
export class InternalMembersController {
  constructor(private readonly members: MembersService) {}

  @Post('users')
  create(@Caller() caller: GatewayContext, @Body() body: InviteMemberDto): Promise<InvitedMemberResponse> {
    return this.members.createByOperator(caller.account.id, body.email);
  }

  @Post('users/remove')
  @HttpCode(200)
  async remove(@Caller() caller: GatewayContext, @Body() body: RemoveMemberDto): Promise<{ removed: MemberView }> {
    return { removed: await this.members.remove(caller.account.id, { email: body.email }) };
  }
}
