import { EventContact, GatewayContext } from '@svc/contracts';
import { ApiError, createLogger } from '@svc/platform';
import { Writable } from 'node:stream';
import { ContactsClient } from '@svc/internal-clients';
import { KeyRing } from '../keys/key-ring';
import { generateEd25519 } from '../keys/signing-keys';
import { IdentityService } from './identity.service';
import { IssuedPassesRepository, PassRecord } from './issued-passes.repository';
import { PassTokenService } from './pass-token.service';

const ACCOUNT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const OTHER_ACCOUNT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const caller: GatewayContext = { account: { id: ACCOUNT, name: 'Acme', plan: 'scale' }, keyId: 'key-1', requestId: 'req-1' };
const chat: GatewayContext = { account: { id: OTHER_ACCOUNT, name: 'Chat', plan: 'scale' }, keyId: 'chat', requestId: 'req-2' };

const ada: EventContact = {
  ref: 'c-42',
  svc_id: 42,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  email_confirmed: true,
  phone: '+447700900123',
  phone_confirmed: false,
  lang: 'en',
  created_at: '2026-11-21T10:04:05.123456+00:00',
  updated_at: '2026-11-21T10:04:05.123456+00:00',
};

function setup() {
  const { publicKey, privateKey } = generateEd25519();
  const tokens = new PassTokenService(new KeyRing([{ kid: 'k1', publicKey, privateKey }], 'k1'), {
    IDENTITY_TOKEN_ISSUER: 'svc-identity-issuer',
    IDENTITY_TOKEN_AUDIENCE: 'svc-chat',
  });
  const byRef = jest.fn<Promise<EventContact | null>, [string, GatewayContext]>();
  const bySvcId = jest.fn<Promise<EventContact | null>, [number, GatewayContext]>();
  const record = jest
    .fn<Promise<{ expires_at: string }>, [PassRecord]>()
    .mockResolvedValue({ expires_at: '2026-12-21T10:04:05.000000+00:00' });
  const contacts: Pick<ContactsClient, 'byRef' | 'bySvcId'> = { byRef, bySvcId };
  const passes: Pick<IssuedPassesRepository, 'record'> = { record };
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const service = new IdentityService(contacts, tokens, passes, createLogger('test', 'info', sink));
  return { service, tokens, byRef, bySvcId, record, lines };
}

describe('IdentityService', () => {
  it("issues a pass for the caller's customer, records it, and answers token and expires_at", async () => {
    const { service, tokens, byRef, record } = setup();
    byRef.mockResolvedValue(ada);
    const pass = await service.issue(caller, 'c-42');
    expect(byRef).toHaveBeenCalledWith('c-42', caller);
    expect(pass.expires_at).toBe('2026-12-21T10:04:05.000000+00:00');
    const check = await tokens.verify(pass.token, ACCOUNT);
    expect(check).toMatchObject({ valid: true, svcId: 42, accountId: ACCOUNT });
    expect(record).toHaveBeenCalledWith(
      expect.objectContaining({ accountId: ACCOUNT, svcId: 42, kid: 'k1', jti: check.valid ? check.jti : '' }),
    );
  });

  it('answers 404 not_found for a ref the account does not have, and records nothing', async () => {
    const { service, byRef, record } = setup();
    byRef.mockResolvedValue(null);
    const refused = await service.issue(caller, 'nobody').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('not_found');
    expect(record).not.toHaveBeenCalled();
  });

  it("identifies the customer with the details the business holds, looked up for the widget's account", async () => {
    const { service, tokens, bySvcId } = setup();
    const { token } = await tokens.issue(ACCOUNT, 42);
    bySvcId.mockResolvedValue(ada);
    await expect(service.verify(chat, token, ACCOUNT)).resolves.toEqual({
      customer: {
        svc_id: 42,
        ref: 'c-42',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        email_confirmed: true,
        phone: '+447700900123',
        phone_confirmed: false,
      },
    });
    expect(bySvcId).toHaveBeenCalledWith(42, {
      account: { id: ACCOUNT, name: '', plan: 'scale' },
      keyId: 'identity-issuer',
      requestId: 'req-2',
    });
  });

  it('identifies nobody when the customer was erased, logging why and never the token', async () => {
    const { service, tokens, bySvcId, lines } = setup();
    const { token, jti } = await tokens.issue(ACCOUNT, 42);
    bySvcId.mockResolvedValue(null);
    await expect(service.verify(chat, token, ACCOUNT)).resolves.toEqual({ customer: null });
    const logged = lines.join('');
    expect(JSON.parse(logged)).toMatchObject({
      reason: 'customer_erased',
      account_id: ACCOUNT,
      jti,
      request_id: 'req-2',
      msg: 'same-browser pass identifies nobody',
    });
    expect(logged).not.toContain(token.split('.')[2]);
  });

  it("identifies nobody for another account's widget without asking contacts-api, logging why", async () => {
    const { service, tokens, bySvcId, lines } = setup();
    const { token } = await tokens.issue(ACCOUNT, 42);
    await expect(service.verify(chat, token, OTHER_ACCOUNT)).resolves.toEqual({ customer: null });
    expect(bySvcId).not.toHaveBeenCalled();
    expect(JSON.parse(lines.join(''))).toMatchObject({ reason: 'other_account', account_id: OTHER_ACCOUNT });
    expect(lines.join('')).not.toContain(token.split('.')[2]);
  });
});
