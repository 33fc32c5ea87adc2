import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, Length } from 'class-validator';

/** A real pass (kid `2026-11`, customer 42, issued 2026-11-21T10:04:05Z), signed by a throw-away key. */
const TOKEN_EXAMPLE =
  'eyJhbGciOiJFZERTQSIsImtpZCI6IjIwMjYtMTEiLCJ0eXAiOiJKV1QifQ.eyJhY2MiOiIwZjhmYWQ1Yi1kOWNiLTQ2OWYtYTE2NS03MDg2NzcyODk1MGUiLCJpc3MiOiJzdmMtaWRlbnRpdHktaXNzdWVyIiwiYXVkIjoic3ZjLWNoYXQiLCJzdWIiOiI0MiIsImlhdCI6MTc5NTI1NTQ0NSwiZXhwIjoxNzk3ODQ3NDQ1LCJqdGkiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.KHskNbpG9TaGYFfvRdrAY9DHf6rAkDPkmPlt_pMo5vw0DHrAZbvRwvhxMqoQUBg6Ax12kCkdLWNH-ngZR5gTAw';

/** `POST /contacts/{ref}/identity` → 201. */
export class IdentityPassResponseDto {
  @ApiProperty({
    description:
      'The same-browser pass: a compact JWS (EdDSA, Ed25519) naming the account and the customer. Place it on that visitor’s page only, as `window.SvcChat = { identity: token }`, before the chat script loads.',
    example: TOKEN_EXAMPLE,
  })
  token!: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the pass stops identifying the customer: 30 days after it was issued.',
    example: '2026-12-21T10:04:05.000000+00:00',
  })
  expires_at!: string;
}

/** Internal: `POST /internal/identity/verify`, called by the chat with the pass its widget found on the page. */
export class VerifyIdentityPassDto {
  @IsString()
  @Length(1, 4096)
  token!: string;

  /** The account whose widget found the pass; a pass of another account identifies nobody. */
  @IsUUID()
  account_id!: string;
}

/** The customer a valid pass identifies, with the details the business holds. */
export interface IdentifiedCustomer {
  svc_id: number;
  ref: string | null;
  name: string;
  email: string | null;
  email_confirmed: boolean;
  phone: string | null;
  phone_confirmed: boolean;
}

/** `customer` is null when the pass identifies nobody (expired, bad signature, another account, erased…). */
export interface VerifyIdentityPassResponse {
  customer: IdentifiedCustomer | null;
}
