import { GatewayContext } from '@svc/contracts';
import { InternalAuth } from './internal-auth';

const CURRENT = 'current-internal-secret-0123456789abcdef';
const PREVIOUS = 'previous-internal-secret-0123456789abcdef';
const context: GatewayContext = {
  account: { id: '0f8fad5b-d9cb-469f-a165-70867728950e', name: 'Acme', plan: 'scale' },
  keyId: 'k-1',
  requestId: 'r-1',
};

describe('InternalAuth', () => {
  it('verifies a context signed for this service', async () => {
    const auth = new InternalAuth(CURRENT);
    await expect(auth.verify(await auth.sign('contacts-api', context), 'contacts-api')).resolves.toEqual(context);
  });

  it('refuses a context signed for another service (audience)', async () => {
    const auth = new InternalAuth(CURRENT);
    await expect(auth.verify(await auth.sign('contacts-api', context), 'knowledge-api')).rejects.toThrow(/aud/);
  });

  it('during a rotation, signs with the current secret and verifies with the current or the previous one', async () => {
    const before = new InternalAuth(PREVIOUS);
    const during = new InternalAuth({ INTERNAL_AUTH_SECRET: CURRENT, INTERNAL_AUTH_SECRET_PREVIOUS: PREVIOUS });
    const after = new InternalAuth(CURRENT);
    // An old process's context is accepted by a rotated one, and a rotated one's by a process already on the new secret.
    await expect(during.verify(await before.sign('events-api', context), 'events-api')).resolves.toEqual(context);
    await expect(after.verify(await during.sign('events-api', context), 'events-api')).resolves.toEqual(context);
    // Signed with the current secret: a process that knows only the previous one refuses it.
    await expect(before.verify(await during.sign('events-api', context), 'events-api')).rejects.toThrow(/signature/);
    // The previous secret does not widen the audience.
    await expect(during.verify(await before.sign('contacts-api', context), 'events-api')).rejects.toThrow(/aud/);
  });

  it('refuses a context signed with a secret it does not hold', async () => {
    const during = new InternalAuth({ INTERNAL_AUTH_SECRET: CURRENT, INTERNAL_AUTH_SECRET_PREVIOUS: PREVIOUS });
    const stranger = new InternalAuth('some-other-secret-0123456789abcdefghij');
    await expect(during.verify(await stranger.sign('events-api', context), 'events-api')).rejects.toThrow(/signature/);
  });

  it("reuses a service's own context for 30 s per callee and account, without a request id", async () => {
    jest.useFakeTimers({ now: new Date('2026-11-28T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const auth = new InternalAuth(CURRENT);
      const first = await auth.signReusable('knowledge-api', context);
      expect(await auth.signReusable('knowledge-api', { ...context, requestId: 'r-2' })).toBe(first);
      expect(await auth.signReusable('contacts-api', context)).not.toBe(first);
      expect(await auth.signReusable('knowledge-api', { ...context, account: { ...context.account, id: 'another' } })).not.toBe(first);
      await expect(auth.verify(first, 'knowledge-api')).resolves.toEqual({ ...context, requestId: '' });
      // Verified once, refused for another audience all the same.
      await expect(auth.verify(first, 'contacts-api')).rejects.toThrow(/aud/);
      jest.setSystemTime(new Date('2026-11-28T10:00:31Z'));
      expect(await auth.signReusable('knowledge-api', context)).not.toBe(first);
      // Past its 60 s, a token verified before is refused.
      jest.setSystemTime(new Date('2026-11-28T10:01:01Z'));
      await expect(auth.verify(first, 'knowledge-api')).rejects.toThrow(/exp/);
    } finally {
      jest.useRealTimers();
    }
  });
});
