import { GatewayContext } from '@svc/contracts';
import { SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import {
  CallerNotAccepted,
  generateInternalKey,
  InternalAuth,
  internalKeySetting,
  internalPublicKey,
  parsePublicKeys,
} from './internal-auth';

const context: GatewayContext = {
  account: { id: '0f8fad5b-d9cb-469f-a165-70867728950e', name: 'Acme', plan: 'scale' },
  keyId: 'k-1',
  requestId: 'r-1',
};

const gateway = generateInternalKey();
const chat = generateInternalKey();
const console_ = generateInternalKey();
const PUBLIC_KEYS = `gateway:${gateway.publicKey} chat:${chat.publicKey},console:${console_.publicKey}`;

const signer = (name: 'gateway' | 'chat' | 'console', seed: string) => new InternalAuth({ name, signingKey: seed });
const callee = (name: string, publicKeys = PUBLIC_KEYS) => new InternalAuth({ name, publicKeys });

describe('InternalAuth', () => {
  it("signs with the caller's own key, naming caller (iss) and callee (aud); the callee verifies with the caller's public key", async () => {
    const token = await signer('gateway', gateway.seed).sign('contacts-api', context);
    await expect(callee('contacts-api').verify(token, ['gateway'])).resolves.toEqual(context);
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
    expect(header).toMatchObject({ alg: 'EdDSA', kid: gateway.publicKey });
    expect(payload).toMatchObject({ iss: 'gateway', aud: 'contacts-api', acc: context.account });
  });

  it('refuses a caller the route does not name (CallerNotAccepted), though its signature is good', async () => {
    const gateway_ = callee('gateway');
    const fromChat = await signer('chat', chat.seed).sign('gateway', context);
    await expect(gateway_.verify(fromChat, ['console'])).rejects.toThrow(CallerNotAccepted);
    await expect(gateway_.verify(fromChat, ['console'])).rejects.toThrow('calls from chat are not accepted here');
    await expect(gateway_.verify(fromChat, [])).rejects.toThrow(CallerNotAccepted);
    // The same verified token, cached, is still checked against each route's list.
    await expect(gateway_.verify(fromChat, ['chat'])).resolves.toEqual(context);
    await expect(gateway_.verify(fromChat, ['console'])).rejects.toThrow(CallerNotAccepted);
    await expect(gateway_.verify(await signer('console', console_.seed).sign('gateway', context), ['console'])).resolves.toEqual(context);
  });

  it('refuses a context for another callee (aud)', async () => {
    const token = await signer('gateway', gateway.seed).sign('contacts-api', context);
    await expect(callee('knowledge-api').verify(token, ['gateway'])).rejects.toThrow(/aud/);
  });

  it('refuses a key that is not listed, and a caller naming itself another (iss other than the owner of the key)', async () => {
    const stranger = generateInternalKey();
    await expect(
      callee('events-api').verify(await signer('gateway', stranger.seed).sign('events-api', context), ['gateway']),
    ).rejects.toThrow(/not in INTERNAL_PUBLIC_KEYS/);
    // The chat's key, claiming to be the console.
    const forged = await signer('console', chat.seed).sign('events-api', context);
    await expect(callee('events-api').verify(forged, ['console', 'chat'])).rejects.toThrow(/issuer/);
  });

  it('refuses an HS256 token and one without a kid, whatever it claims', async () => {
    const hs = await new SignJWT({ acc: context.account })
      .setProtectedHeader({ alg: 'HS256', kid: chat.publicKey })
      .setIssuer('chat')
      .setAudience('x')
      .setExpirationTime('60s')
      .sign(Buffer.alloc(32, 1));
    await expect(callee('x').verify(hs, ['chat'])).rejects.toThrow();
    const key = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(chat.seed, 'base64url')]),
      format: 'der',
      type: 'pkcs8',
    });
    const noKid = await new SignJWT({ acc: context.account })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('chat')
      .setAudience('x')
      .setExpirationTime('60s')
      .sign(key);
    await expect(callee('x').verify(noKid, ['chat'])).rejects.toThrow(/not in INTERNAL_PUBLIC_KEYS/);
  });

  it("during a rotation of a caller's key accepts the old and the new key (both listed), and after it only the new one", async () => {
    const next = generateInternalKey();
    const during = callee('events-api', `${PUBLIC_KEYS} chat:${next.publicKey}`);
    const after = callee('events-api', `gateway:${gateway.publicKey} chat:${next.publicKey}`);
    const old = await signer('chat', chat.seed).sign('events-api', context);
    const rotated = await signer('chat', next.seed).sign('events-api', context);
    await expect(during.verify(old, ['chat'])).resolves.toEqual(context);
    await expect(during.verify(rotated, ['chat'])).resolves.toEqual(context);
    await expect(after.verify(rotated, ['chat'])).resolves.toEqual(context);
    await expect(after.verify(old, ['chat'])).rejects.toThrow(/not in INTERNAL_PUBLIC_KEYS/);
  });

  it('cannot sign without a key of its own (an app only called)', async () => {
    await expect(async () => callee('knowledge-api').sign('chat', context)).rejects.toThrow(/knowledge-api has no key/);
  });

  it('reads its key and the public keys from an environment', async () => {
    const env = { [internalKeySetting('console')]: console_.seed, INTERNAL_PUBLIC_KEYS: PUBLIC_KEYS };
    expect(internalKeySetting('mcp-server')).toBe('MCP_SERVER_INTERNAL_KEY');
    const token = await InternalAuth.fromEnv('console', env).sign('gateway', context);
    await expect(InternalAuth.fromEnv('gateway', env).verify(token, ['console'])).resolves.toEqual(context);
  });

  it('derives the public key from the seed, in base64 or base64url', () => {
    expect(internalPublicKey(chat.seed)).toBe(chat.publicKey);
    expect(internalPublicKey(Buffer.from(chat.seed, 'base64url').toString('base64'))).toBe(chat.publicKey);
    expect(() => internalPublicKey('c2hvcnQ')).toThrow(/32-byte Ed25519 seed/);
    expect([...parsePublicKeys(PUBLIC_KEYS).values()].map((k) => k.caller)).toEqual(['gateway', 'chat', 'console']);
  });

  describe('signReusable', () => {
    afterEach(() => jest.useRealTimers());

    it('reuses one context per callee, account and key for 30 s, without a request id', async () => {
      jest.useFakeTimers({ now: new Date('2026-11-28T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const auth = signer('chat', chat.seed);
      const first = await auth.signReusable('knowledge-api', context);
      expect(await auth.signReusable('knowledge-api', { ...context, requestId: 'r-2' })).toBe(first);
      expect(await auth.signReusable('contacts-api', context)).not.toBe(first);
      expect(await auth.signReusable('knowledge-api', { ...context, account: { ...context.account, id: 'another' } })).not.toBe(first);
      await expect(callee('knowledge-api').verify(first, ['chat'])).resolves.toEqual({ ...context, requestId: '' });
      jest.setSystemTime(new Date('2026-11-28T10:00:31Z'));
      expect(await auth.signReusable('knowledge-api', context)).not.toBe(first);
      jest.setSystemTime(new Date('2026-11-28T10:01:01Z'));
      await expect(callee('knowledge-api').verify(first, ['chat'])).rejects.toThrow(/exp/);
    });
  });
});
