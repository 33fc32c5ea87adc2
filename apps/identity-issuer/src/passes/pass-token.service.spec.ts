import { decodeJwt, decodeProtectedHeader } from 'jose';
import { KeyRing } from '../keys/key-ring';
import { generateEd25519, SigningKey } from '../keys/signing-keys';
import { PASS_LIFETIME_S, PassTokenService } from './pass-token.service';

const ACCOUNT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const OTHER_ACCOUNT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const ISSUED_AT = new Date('2026-11-21T10:04:05.678Z');
const DAY_MS = 24 * 60 * 60 * 1000;

function newKey(kid: string): SigningKey {
  const { publicKey, privateKey } = generateEd25519();
  return { kid, publicKey, privateKey };
}

function retired(key: SigningKey): SigningKey {
  return { kid: key.kid, publicKey: key.publicKey };
}

const config = { IDENTITY_TOKEN_ISSUER: 'svc-identity-issuer', IDENTITY_TOKEN_AUDIENCE: 'svc-chat' };

/** A token service over `keys` whose clock reads `at`. */
function tokens(keys: SigningKey[], activeKid: string, at: Date = ISSUED_AT): PassTokenService {
  return Object.assign(new PassTokenService(new KeyRing(keys, activeKid), config), { clock: () => at });
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('PassTokenService', () => {
  const key = newKey('k-2026-11');
  const service = tokens([key], key.kid);

  it('issues a compact EdDSA JWS with kid, iss, aud, acc, sub, iat, exp (30 days) and jti, which verifies', async () => {
    const pass = await service.issue(ACCOUNT, 42);
    expect(pass.token.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(pass.token)).toEqual({ alg: 'EdDSA', kid: 'k-2026-11', typ: 'JWT' });
    const iat = Math.floor(ISSUED_AT.getTime() / 1000);
    expect(decodeJwt(pass.token)).toEqual({
      iss: 'svc-identity-issuer',
      aud: 'svc-chat',
      acc: ACCOUNT,
      sub: '42',
      iat,
      exp: iat + 30 * 24 * 3600,
      jti: pass.jti,
    });
    expect(pass).toMatchObject({ kid: 'k-2026-11', issuedAt: iat, expiresAt: iat + PASS_LIFETIME_S });
    await expect(service.verify(pass.token, ACCOUNT)).resolves.toEqual({
      valid: true,
      accountId: ACCOUNT,
      svcId: 42,
      jti: pass.jti,
      kid: 'k-2026-11',
    });
  });

  it('gives every pass its own jti', async () => {
    const [a, b] = await Promise.all([service.issue(ACCOUNT, 42), service.issue(ACCOUNT, 42)]);
    expect(a.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.jti).not.toBe(b.jti);
    expect(a.token).not.toBe(b.token);
  });

  it('still identifies on day 29 and refuses as expired once the clock is 31 days on', async () => {
    const pass = await service.issue(ACCOUNT, 42);
    const later = (days: number) => tokens([key], key.kid, new Date(ISSUED_AT.getTime() + days * DAY_MS));
    await expect(later(29).verify(pass.token, ACCOUNT)).resolves.toMatchObject({ valid: true });
    await expect(later(31).verify(pass.token, ACCOUNT)).resolves.toEqual({ valid: false, reason: 'expired' });
  });

  it('refuses a pass whose payload was altered (another customer) as a bad signature', async () => {
    const pass = await service.issue(ACCOUNT, 42);
    const [header, payload, signature] = pass.token.split('.') as [string, string, string];
    const altered = { ...(JSON.parse(Buffer.from(payload, 'base64url').toString()) as object), sub: '43' };
    await expect(service.verify(`${header}.${base64url(altered)}.${signature}`, ACCOUNT)).resolves.toEqual({
      valid: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a pass signed with another key under a listed kid as a bad signature', async () => {
    const impostor = tokens([newKey('k-2026-11')], 'k-2026-11');
    const forged = await impostor.issue(ACCOUNT, 42);
    await expect(service.verify(forged.token, ACCOUNT)).resolves.toEqual({ valid: false, reason: 'bad_signature' });
  });

  it('refuses a pass whose kid is not listed', async () => {
    const stranger = newKey('k-unknown');
    const pass = await tokens([stranger], stranger.kid).issue(ACCOUNT, 42);
    await expect(service.verify(pass.token, ACCOUNT)).resolves.toEqual({ valid: false, reason: 'unknown_kid' });
  });

  it("refuses a pass found by another account's widget", async () => {
    const pass = await service.issue(ACCOUNT, 42);
    await expect(service.verify(pass.token, OTHER_ACCOUNT)).resolves.toEqual({ valid: false, reason: 'other_account' });
  });

  it('refuses a pass of another issuer or audience', async () => {
    const elsewhere = Object.assign(
      new PassTokenService(new KeyRing([key], key.kid), { ...config, IDENTITY_TOKEN_ISSUER: 'someone-else' }),
      {
        clock: () => ISSUED_AT,
      },
    );
    const pass = await elsewhere.issue(ACCOUNT, 42);
    await expect(service.verify(pass.token, ACCOUNT)).resolves.toEqual({ valid: false, reason: 'invalid_claims' });
  });

  it.each([
    ['not a JWS', 'not-a-token'],
    ['an unsigned token (alg none)', `${base64url({ alg: 'none', kid: 'k-2026-11' })}.${base64url({ acc: ACCOUNT, sub: '42' })}.`],
  ])('refuses %s as malformed', async (_label, token) => {
    await expect(service.verify(token, ACCOUNT)).resolves.toEqual({ valid: false, reason: 'malformed' });
  });

  describe('key rotation', () => {
    const old = newKey('k-2026-10');
    const current = newKey('k-2026-11');
    const before = tokens([old], old.kid);

    it('a pass signed by the old key verifies while the old key is listed, and new passes use the new key', async () => {
      const pass = await before.issue(ACCOUNT, 42);
      const after = tokens([current, retired(old)], current.kid);
      await expect(after.verify(pass.token, ACCOUNT)).resolves.toMatchObject({ valid: true, kid: 'k-2026-10', svcId: 42 });
      const fresh = await after.issue(ACCOUNT, 42);
      expect(decodeProtectedHeader(fresh.token).kid).toBe('k-2026-11');
    });

    it('the old pass identifies nobody once the old key is removed', async () => {
      const pass = await before.issue(ACCOUNT, 42);
      await expect(tokens([current], current.kid).verify(pass.token, ACCOUNT)).resolves.toEqual({ valid: false, reason: 'unknown_kid' });
    });
  });
});
