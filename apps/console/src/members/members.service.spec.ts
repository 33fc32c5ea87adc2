import { ApiError } from '@svc/platform';
import * as argon2 from 'argon2';
import { LinkRow, MemberRow, MembersRepository, PersonRow } from './members.repository';
import { MembersConfig, MembersService, passwords } from './members.service';

const ACCOUNT = '7f3d2c1b-0000-4000-8000-000000000001';
const MEMBER_ID = '7f3d2c1b-0000-4000-8000-0000000000aa';
const member = (overrides: Partial<MemberRow> = {}): MemberRow => ({
  id: 'm-1',
  account_id: ACCOUNT,
  person_id: 'p-1',
  email: 'ana@shop.example',
  role: 'agent',
  password_hash: null,
  accepted_at: null,
  created_at: '2026-11-24T01:00:00.000000+00:00',
  ...overrides,
});
const person = (overrides: Partial<PersonRow> = {}): PersonRow => ({
  id: 'p-1',
  email: 'ana@shop.example',
  password_hash: null,
  ...overrides,
});
const link = (overrides: Partial<LinkRow> = {}): LinkRow => ({
  member_id: 'm-1',
  person_id: 'p-1',
  email: 'ana@shop.example',
  password_hash: null,
  resets: false,
  ...overrides,
});
const ONE_ACCOUNT = [{ member_id: 'm-1', account_id: ACCOUNT, role: 'agent' }];

function repository(overrides: Partial<Record<keyof MembersRepository, jest.Mock>> = {}): jest.Mocked<MembersRepository> {
  return {
    findPerson: jest.fn().mockResolvedValue(undefined),
    memberships: jest.fn().mockResolvedValue(ONE_ACCOUNT),
    findOrAddMember: jest.fn().mockResolvedValue(member()),
    setPendingRole: jest.fn().mockResolvedValue(undefined),
    listMembers: jest.fn().mockResolvedValue([]),
    removeMember: jest.fn().mockResolvedValue(member()),
    insertPasswordLink: jest.fn().mockResolvedValue(undefined),
    findLink: jest.fn().mockResolvedValue(undefined),
    useLink: jest.fn().mockResolvedValue(undefined),
    openSession: jest.fn().mockResolvedValue(undefined),
    findSession: jest.fn().mockResolvedValue(undefined),
    chooseAccount: jest.fn().mockResolvedValue(true),
    deleteSession: jest.fn().mockResolvedValue(undefined),
    reserveAttempt: jest.fn().mockResolvedValue({ n: 1, retry_after_s: 900 }),
    releaseAttempts: jest.fn().mockResolvedValue(undefined),
    isKnown: jest.fn().mockResolvedValue(false),
    pruneCounters: jest.fn().mockResolvedValue(undefined),
    ...overrides,
  } as unknown as jest.Mocked<MembersRepository>;
}

const CONFIG: MembersConfig = {
  APP_URL: 'https://app.example.com',
  SESSION_TTL_HOURS: 168,
  SIGN_IN_FAILURES: 5,
  SIGN_IN_EMAIL_FAILURES: 100,
  SIGN_IN_WINDOW_S: 900,
  PASSWORD_HASHES_IN_FLIGHT: 4,
  PASSWORD_HASH_WAIT_MS: 2_000,
};
const service = (repo: MembersRepository, config: Partial<MembersConfig> = {}) => new MembersService(repo, { ...CONFIG, ...config });
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err: unknown) => (err instanceof ApiError ? err.code : String(err)),
  );

describe('MembersService', () => {
  afterEach(() => jest.restoreAllMocks());

  it('invites: a one-time link under APP_URL whose token is stored only as a hash, for a member of the role chosen', async () => {
    const repo = repository();
    const invited = await service(repo).invite(ACCOUNT, 'ana@shop.example', 'agent');
    expect(invited.user).toEqual({ id: 'm-1', email: 'ana@shop.example' });
    expect(repo.findOrAddMember).toHaveBeenCalledWith(ACCOUNT, 'ana@shop.example', 'agent');
    const token = new URL(invited.sign_in_url).searchParams.get('token') ?? '';
    expect(invited.sign_in_url.startsWith('https://app.example.com/set-password?token=')).toBe(true);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [, stored, hours, resets] = repo.insertPasswordLink.mock.calls[0] ?? [];
    expect(hours).toBe(24);
    expect(resets).toBe(false);
    expect(Buffer.isBuffer(stored) && stored.length).toBe(32);
    expect(stored?.toString('utf8')).not.toContain(token);
  });

  it('invites a person who is a member of another account with the same answer as a new one (their membership added, pending)', async () => {
    const elsewhere = repository({ findOrAddMember: jest.fn().mockResolvedValue(member({ password_hash: '$argon2id$…' })) });
    const fresh = repository();
    const [a, b] = [
      await service(elsewhere).invite(ACCOUNT, 'ana@shop.example', 'agent'),
      await service(fresh).invite(ACCOUNT, 'ana@shop.example', 'agent'),
    ];
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    expect(a.user).toEqual(b.user);
    expect(elsewhere.insertPasswordLink.mock.calls[0]?.[3]).toBe(false);
  });

  it('refuses to invite an active member of this account (409): no link to take over their sign-in', async () => {
    const repo = repository({
      findOrAddMember: jest.fn().mockResolvedValue(member({ accepted_at: '2026-11-24T01:00:00Z', role: 'owner' })),
    });
    expect(await codeOf(service(repo).invite(ACCOUNT, 'ana@shop.example', 'agent'))).toBe('conflict');
    expect(repo.insertPasswordLink).not.toHaveBeenCalled();
    expect(repo.setPendingRole).not.toHaveBeenCalled();
  });

  it('re-sends a pending invitation: a new link, with the role now chosen', async () => {
    const repo = repository({ findOrAddMember: jest.fn().mockResolvedValue(member({ role: 'agent' })) });
    await service(repo).invite(ACCOUNT, 'ana@shop.example', 'owner');
    expect(repo.setPendingRole).toHaveBeenCalledWith('m-1', 'owner');
    expect(repo.insertPasswordLink).toHaveBeenCalledTimes(1);
  });

  it("admin user create makes an owner and a link that resets the password (the operator's)", async () => {
    const repo = repository({
      findOrAddMember: jest.fn().mockResolvedValue(member({ role: 'owner', accepted_at: '2026-11-24T01:00:00Z' })),
    });
    const created = await service(repo).createByOperator(ACCOUNT, 'ana@shop.example');
    expect(repo.findOrAddMember).toHaveBeenCalledWith(ACCOUNT, 'ana@shop.example', 'owner');
    expect(Object.keys(created).sort()).toEqual(['sign_in_url', 'user']);
    expect(repo.insertPasswordLink.mock.calls[0]?.[3]).toBe(true);
  });

  it('removes a member; an unknown or malformed id is 404 (no SQL for a malformed one); the last owner is 409', async () => {
    const repo = repository();
    expect(await service(repo).remove(ACCOUNT, { id: MEMBER_ID })).toMatchObject({ id: 'm-1', role: 'agent' });
    expect(await codeOf(service(repo).remove(ACCOUNT, { id: "1' OR 1=1" }))).toBe('not_found');
    expect(repo.removeMember).toHaveBeenCalledTimes(1);
    expect(
      await codeOf(service(repository({ removeMember: jest.fn().mockResolvedValue('not_found') })).remove(ACCOUNT, { id: MEMBER_ID })),
    ).toBe('not_found');
    const last = repository({ removeMember: jest.fn().mockResolvedValue('last_owner') });
    expect(await codeOf(service(last).remove(ACCOUNT, { email: 'ana@shop.example' }))).toBe('conflict');
  });

  it('signs in with the right password (argon2id): clears its (email, client) count, gives back the others, remembers the client', async () => {
    const hash = await argon2.hash('correct horse battery', { type: argon2.argon2id });
    const repo = repository({ findPerson: jest.fn().mockResolvedValue(person({ password_hash: hash })) });
    const session = await service(repo).signIn('Ana@shop.example', 'correct horse battery', '10.0.0.1');
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.memberships).toEqual(ONE_ACCOUNT);
    expect(repo.openSession).toHaveBeenCalledWith('p-1', 'm-1', expect.objectContaining({ ttlHours: 168 }), {
      clear: ['pair:ana@shop.example 10.0.0.1'],
      release: ['address:10.0.0.1', 'email:ana@shop.example'],
      known: { key: 'known:ana@shop.example 10.0.0.1', days: 30 },
    });
    expect(await codeOf(service(repo).signIn('ana@shop.example', 'wrong', '10.0.0.1'))).toBe('unauthorized');
    expect(repo.openSession).toHaveBeenCalledTimes(1);
  });

  it('with several accounts the session acts in none until one is chosen; with none the sign-in is the same 401', async () => {
    const hash = await argon2.hash('correct horse battery', { type: argon2.argon2id });
    const two = [...ONE_ACCOUNT, { member_id: 'm-2', account_id: 'a-2', role: 'owner' }];
    const repo = repository({
      findPerson: jest.fn().mockResolvedValue(person({ password_hash: hash })),
      memberships: jest.fn().mockResolvedValue(two),
    });
    expect((await service(repo).signIn('ana@shop.example', 'correct horse battery', '10.0.0.1')).memberships).toEqual(two);
    expect(repo.openSession.mock.calls[0]?.[1]).toBeNull();
    const none = repository({
      findPerson: jest.fn().mockResolvedValue(person({ password_hash: hash })),
      memberships: jest.fn().mockResolvedValue([]),
    });
    expect(await codeOf(service(none).signIn('ana@shop.example', 'correct horse battery', '10.0.0.1'))).toBe('unauthorized');
  });

  it('an unknown email or a person without a password is the same 401 (no hint which)', async () => {
    expect(await codeOf(service(repository()).signIn('nobody@shop.example', 'x', '10.0.0.1'))).toBe('unauthorized');
    const invited = repository({ findPerson: jest.fn().mockResolvedValue(person()) });
    expect(await codeOf(service(invited).signIn('ana@shop.example', 'x', '10.0.0.1'))).toBe('unauthorized');
  });

  it('throttles before any password check: past the (email, client), client or email count → 429 with Retry-After', async () => {
    const verify = jest.spyOn(passwords, 'verify');
    const over = (key: string, limit: number) =>
      repository({
        reserveAttempt: jest
          .fn()
          .mockImplementation(async (k: string) =>
            k.startsWith(key) ? { n: limit + 1, retry_after_s: 600 } : { n: 1, retry_after_s: 900 },
          ),
      });
    const pair = over('pair:', 5);
    const refused = await service(pair)
      .signIn('ana@shop.example', 'x', '10.0.0.1')
      .catch((err: ApiError) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('rate_limited');
    expect((refused as ApiError).headers['retry-after']).toBe('600');
    expect(pair.reserveAttempt).toHaveBeenCalledTimes(1);
    expect(pair.findPerson).not.toHaveBeenCalled();
    expect(await codeOf(service(over('address:', 20)).signIn('bo@shop.example', 'x', '10.0.0.1'))).toBe('rate_limited');
    expect(await codeOf(service(over('email:', 100)).signIn('bo@shop.example', 'x', '10.0.0.1'))).toBe('rate_limited');
    expect(verify).not.toHaveBeenCalled();
  });

  it('counts an IPv6 client by its /64, and the per-email count does not apply to a client the member signed in from', async () => {
    const repo = repository({ isKnown: jest.fn().mockResolvedValue(true) });
    expect(await codeOf(service(repo).signIn('ana@shop.example', 'x', '2001:db8:1:2:aaaa::7'))).toBe('unauthorized');
    expect(repo.reserveAttempt.mock.calls.map(([key]) => key)).toEqual([
      'pair:ana@shop.example 2001:db8:1:2::/64',
      'address:2001:db8:1:2::/64',
    ]);
  });

  it('an unusable set-password link is 404 before any hashing (counted per client); a valid one hashes the password and signs in', async () => {
    const hash = jest.spyOn(passwords, 'hash');
    const junk = repository();
    expect(await codeOf(service(junk).setPassword('token', 'a long password', '10.0.0.1'))).toBe('not_found');
    expect(hash).not.toHaveBeenCalled();
    expect(junk.useLink).not.toHaveBeenCalled();
    expect(junk.reserveAttempt.mock.calls.map(([key]) => key)).toEqual(['address:10.0.0.1']);

    const repo = repository({ findLink: jest.fn().mockResolvedValue(link()), useLink: jest.fn().mockResolvedValue(member()) });
    const session = await service(repo).setPassword('token', 'a long password', '10.0.0.1');
    expect(hash).toHaveBeenCalledTimes(1);
    expect(session.memberships).toEqual([{ member_id: 'm-1', account_id: ACCOUNT, role: 'agent' }]);
    expect(repo.reserveAttempt.mock.calls.map(([key]) => key)).toEqual([
      'address:10.0.0.1',
      'pair:ana@shop.example 10.0.0.1',
      'email:ana@shop.example',
    ]);
    const stored = repo.useLink.mock.calls[0]?.[1] as { hash: string; seen: string | null };
    expect(stored.seen).toBeNull();
    expect(await argon2.verify(stored.hash, 'a long password')).toBe(true);
  });

  it("an owner's invitation of a person who has a password asks for it: never sets it, a wrong one is 401 and uses nothing", async () => {
    const existing = await argon2.hash('my own password', { type: argon2.argon2id });
    const hash = jest.spyOn(passwords, 'hash');
    const repo = repository({
      findLink: jest.fn().mockResolvedValue(link({ password_hash: existing })),
      useLink: jest.fn().mockResolvedValue(member()),
    });
    expect(await codeOf(service(repo).setPassword('token', 'a takeover attempt', '10.0.0.1'))).toBe('unauthorized');
    expect(repo.useLink).not.toHaveBeenCalled();
    await service(repo).setPassword('token', 'my own password', '10.0.0.1');
    expect(repo.useLink.mock.calls[0]?.[1]).toBeUndefined();
    expect(hash).not.toHaveBeenCalled();
    // The operator's link resets it.
    const reset = repository({
      findLink: jest.fn().mockResolvedValue(link({ password_hash: existing, resets: true })),
      useLink: jest.fn().mockResolvedValue(member()),
    });
    await service(reset).setPassword('token', 'a new password', '10.0.0.1');
    expect(reset.useLink.mock.calls[0]?.[1]).toMatchObject({ seen: existing });
  });

  it('30 sign-ins at once: at most PASSWORD_HASHES_IN_FLIGHT hashes run together; those that wait too long get 503 with Retry-After', async () => {
    let inFlight = 0;
    let most = 0;
    jest.spyOn(passwords, 'verify').mockImplementation(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 40));
      inFlight -= 1;
      return false;
    });
    const members = service(repository(), { PASSWORD_HASHES_IN_FLIGHT: 2, PASSWORD_HASH_WAIT_MS: 150 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => members.signIn(`p${i}@shop.example`, 'x', `10.0.0.${i}`).catch((err: ApiError) => err)),
    );
    expect(most).toBe(2);
    const codes = results.map((r) => (r instanceof ApiError ? r.code : 'ok'));
    expect(codes.filter((c) => c === 'unauthorized').length).toBeGreaterThanOrEqual(2);
    expect(codes.filter((c) => c === 'unavailable').length).toBeGreaterThan(0);
    expect(codes.filter((c) => c !== 'unauthorized' && c !== 'unavailable')).toEqual([]);
    const busy = results.find((r): r is ApiError => r instanceof ApiError && r.code === 'unavailable');
    expect(busy?.headers['retry-after']).toBe('1');
  });
});
