/**
 * The console's own routes (`{app_url}/console/v1/…`, for its single-page front end): sign-in,
 * set-password, invitations. Not part of the public REST API.
 */
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';

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

/** `POST /console/v1/members` (Invite) and the console's internal route for `admin user create`. */
export class InviteMemberDto {
  @IsEmail()
  @MaxLength(320)
  email!: string;
}

/** What `admin user create` prints and Invite returns: the member and their one-time link (24 h). */
export interface InvitedMemberResponse {
  user: { id: string; email: string };
  sign_in_url: string;
}
