import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ChooseAccountDto, InvitedMemberResponse, InviteMemberDto, RemoveMemberDto, Role, SetPasswordDto, SignInDto } from '@svc/contracts';
import { Caller, InternalCallers } from '@svc/platform';
import type { GatewayContext } from '@svc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { Upstreams } from '../upstreams/upstreams';
import { Membership, MemberSession, SessionRow } from './members.repository';
import { MembersService, MemberView, NewSession } from './members.service';
import { ConsoleInternalGuard, OwnerGuard, PersonGuard, SessionGuard } from './session.guard';
import { checkOrigin, clearSessionCookie, cookie, inAccount, Member, SESSION_COOKIE, setSessionCookie } from './session';

/** An account a person may act in, as the page lists it. */
interface AccountChoice {
  id: string;
  name: string;
  role: Role;
}

/**
 * What sign-in and set-password answer: the person now signed in (the session is in its cookie) and
 * the accounts they may act in; `account` is the one the session acts in (null: they choose).
 */
type SignedIn = { user: { id: string; email: string }; account: string | null; accounts: AccountChoice[] };

/** Sign-in, set-password, sign-out and the page's session (`/console/v1/…`, for the console's own page). */
@ApiExcludeController()
@Controller('console/v1')
export class AuthController {
  private readonly secure: boolean;
  private readonly origin: string;

  constructor(
    private readonly members: MembersService,
    private readonly upstreams: Upstreams,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
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
    return this.start(request, reply, () => this.members.setPassword(body.token, body.password, request.ip));
  }

  @Post('sign-out')
  @HttpCode(204)
  @UseGuards(PersonGuard)
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const token = cookie(request, SESSION_COOKIE);
    if (token) await this.members.signOut(token);
    clearSessionCookie(reply, this.secure);
  }

  /**
   * What the page needs to start: who is signed in, the account the session acts in (null until
   * chosen) and the accounts they may choose, the CSRF token for writes.
   */
  @Get('session')
  @UseGuards(PersonGuard)
  async session(@Req() request: FastifyRequest, @Member() session: SessionRow) {
    const [account, accounts] = await Promise.all([
      inAccount(session) ? this.upstreams.account(session.account_id, request.id) : null,
      this.members.memberships(session).then((memberships) => this.choices(memberships, request.id)),
    ]);
    return {
      user: { id: session.person_id, email: session.email, role: session.role },
      account,
      accounts,
      csrf_token: session.csrf_token,
      app_url: this.config.APP_URL,
    };
  }

  /** Chooses (or switches) the account the session acts in: one of the person's accounts (404 otherwise). */
  @Post('session/account')
  @HttpCode(204)
  @UseGuards(PersonGuard)
  async chooseAccount(@Member() session: SessionRow, @Body() body: ChooseAccountDto): Promise<void> {
    await this.members.chooseAccount(session, body.account_id);
  }

  @Get('members')
  @UseGuards(SessionGuard)
  listMembers(@Member() member: MemberSession): Promise<{ members: MemberView[] }> {
    return this.members.listMembers(member.account_id).then((members) => ({ members }));
  }

  /** Invite (owners): the new member's one-time set-password link (24 h), to pass on to them; again for a pending invitation. */
  @Post('members')
  @UseGuards(OwnerGuard)
  invite(@Member() member: MemberSession, @Body() body: InviteMemberDto): Promise<InvitedMemberResponse> {
    return this.members.invite(member.account_id, body.email, body.role ?? 'agent');
  }

  /** Remove (owners): the member and every session of theirs, at once; never the account's last owner. */
  @Delete('members/:id')
  @HttpCode(204)
  @UseGuards(OwnerGuard)
  async remove(@Member() member: MemberSession, @Param('id') id: string): Promise<void> {
    await this.members.remove(member.account_id, { id });
  }

  /** A new session, from the console's own page only: its cookie set, its member answered. */
  private async start(request: FastifyRequest, reply: FastifyReply, open: () => Promise<NewSession>): Promise<SignedIn> {
    checkOrigin(request, this.origin);
    const { token, person, memberships } = await open();
    setSessionCookie(reply, token, this.config.SESSION_TTL_HOURS * 3600, this.secure);
    const accounts = await this.choices(memberships, request.id);
    return { user: person, account: accounts.length === 1 ? (accounts[0]?.id ?? null) : null, accounts };
  }

  /** The accounts of these memberships with their names (from the gateway, cached), by name. */
  private async choices(memberships: Membership[], requestId: string): Promise<AccountChoice[]> {
    const accounts = await Promise.all(
      memberships.map(async (m) => ({
        id: m.account_id,
        name: (await this.upstreams.account(m.account_id, requestId)).name,
        role: m.role,
      })),
    );
    return accounts.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }
}

/** `admin user create` and `remove`: members of the account in the signed context (audience `console`). */
@ApiExcludeController()
@Controller('internal/console')
@InternalCallers('admin')
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
