/** The console's own routes (`/console/v1/…`): sign-in, set-password, invitations; not the public API. */
import { IsEmail, IsIn, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';

/** Passwords: 10 to 200 characters (argon2id hashes any length; the cap bounds the work). */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

export class SignInDto {
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @IsString()
  @Length(1, PASSWORD_MAX)
  password!: string;
}

export class SetPasswordDto {
  @IsString()
  @Length(1, 200)
  token!: string;

  @IsString()
  @Length(PASSWORD_MIN, PASSWORD_MAX, { message: `password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` })
  password!: string;
}

/** A member's role: `owner` (keys, webhooks, plan, members) or `agent` (conversations, customers, bookings). */
export const ROLES = ['owner', 'agent'] as const;
export type Role = (typeof ROLES)[number];

/** `POST /console/v1/members` (Invite; `role` defaults to `agent`) and the console's internal routes for `admin user`. */
export class InviteMemberDto {
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @IsOptional()
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role?: Role;
}

/** `admin user remove`: the member of the account with this email. */
export class RemoveMemberDto {
  @IsEmail()
  @MaxLength(320)
  email!: string;
}

/** `POST /console/v1/session/account`: the account the session acts in from now on (one of the person's). */
export class ChooseAccountDto {
  @IsUUID()
  account_id!: string;
}

/** What `admin user create` prints and Invite returns: the member and their one-time link (24 h). */
export interface InvitedMemberResponse {
  user: { id: string; email: string };
  sign_in_url: string;
}
