import { Inject, Injectable } from '@nestjs/common';
import { errors, JWTHeaderParameters, jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { IdentityIssuerConfig } from '../identity-issuer.config';
import { KeyRing } from '../keys/key-ring';
import { IDENTITY_ISSUER_CONFIG } from '../identity-issuer.config';

/** The contract: a pass lasts 30 days. */
export const PASS_LIFETIME_S = 30 * 24 * 60 * 60;

const SVC_ID = /^[1-9][0-9]{0,15}$/;

/** `iss` (this issuer) and `aud` (the chat, which verifies passes). */
export type PassTokenConfig = Pick<IdentityIssuerConfig, 'IDENTITY_TOKEN_ISSUER' | 'IDENTITY_TOKEN_AUDIENCE'>;

export interface IssuedPass {
  token: string;
  jti: string;
  kid: string;
  /** Unix seconds, as in the token's `iat` and `exp`. */
  issuedAt: number;
  expiresAt: number;
}

/** Why a pass identifies nobody: logged, never shown to the visitor. */
export type PassRefusal = 'expired' | 'bad_signature' | 'unknown_kid' | 'other_account' | 'invalid_claims' | 'malformed';

export type PassCheck = { valid: true; accountId: string; svcId: number; jti: string; kid: string } | { valid: false; reason: PassRefusal };

class UnknownKid extends Error {}

function refusalOf(err: unknown): PassRefusal {
  if (err instanceof UnknownKid) return 'unknown_kid';
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof errors.JWTClaimValidationFailed) return 'invalid_claims';
  if (err instanceof errors.JOSEError) return 'malformed';
  throw err;
}

/**
 * Same-browser passes: compact JWS (EdDSA over Ed25519, `kid` in the header) with `iss`, `aud`,
 * `acc` (account id), `sub` (the customer's svc_id), `iat`, `exp` (30 days) and a unique `jti`.
 */
@Injectable()
export class PassTokenService {
  /** The current time; tests move it. */
  clock: () => Date = () => new Date();
  private readonly options: { issuer: string; audience: string };

  constructor(
    private readonly keys: KeyRing,
    @Inject(IDENTITY_ISSUER_CONFIG) config: PassTokenConfig,
  ) {
    this.options = { issuer: config.IDENTITY_TOKEN_ISSUER, audience: config.IDENTITY_TOKEN_AUDIENCE };
  }

  async issue(accountId: string, svcId: number): Promise<IssuedPass> {
    const { kid, privateKey } = this.keys.signer;
    const issuedAt = Math.floor(this.clock().getTime() / 1000);
    const expiresAt = issuedAt + PASS_LIFETIME_S;
    const jti = randomUUID();
    const token = await new SignJWT({ acc: accountId })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
      .setIssuer(this.options.issuer)
      .setAudience(this.options.audience)
      .setSubject(String(svcId))
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(jti)
      .sign(privateKey);
    return { token, jti, kid, issuedAt, expiresAt };
  }

  /** Checks a pass found by the widget of `widgetAccountId`: signature, kid, issuer, audience, expiry, account. */
  async verify(token: string, widgetAccountId: string): Promise<PassCheck> {
    let verified;
    try {
      verified = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyFor(header), {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: ['EdDSA'],
        currentDate: this.clock(),
        requiredClaims: ['acc', 'sub', 'jti', 'iat', 'exp'],
      });
    } catch (err) {
      return { valid: false, reason: refusalOf(err) };
    }
    const { payload, protectedHeader } = verified;
    const { acc, sub, jti } = payload;
    if (typeof acc !== 'string' || typeof jti !== 'string' || typeof sub !== 'string' || !SVC_ID.test(sub))
      return { valid: false, reason: 'invalid_claims' };
    if (acc !== widgetAccountId) return { valid: false, reason: 'other_account' };
    return { valid: true, accountId: acc, svcId: Number(sub), jti, kid: protectedHeader.kid as string };
  }

  private keyFor(header: JWTHeaderParameters): KeyObject {
    const key = this.keys.verificationKey(header.kid);
    if (!key) throw new UnknownKid();
    return key;
  }
}
