import { ApiError } from '@svc/platform';
import * as argon2 from 'argon2';
import { MemberRow, MembersRepository } from './members.repository';
import { MembersService, passwords } from './members.service';

const ACCOUNT = '7f3d2c1b-0000-4000-8000-000000000001';
const MEMBER_ID = '7f3d2c1b-0000-4000-8000-0000000000aa';
const member = (overrides: Partial<MemberRow> = {}): MemberRow => ({
  id: 'm-1',
  account_id: ACCOUNT,
  email: 'ana@shop.example',
  role: 'agent',
  password_hash: null,
  created_at: '2026-11-24T01:00:00.000000+00:00',
  ...overrides,
});

function repository(overrides: Partial<Record<keyof MembersRepository, jest.Mock>> = {}): jest.Mocked<MembersRepository> {
  return {
    findByEmail: jest.fn().mockResolvedValue(undefined),
    findOrCreate: jest.fn().mockResolvedValue(member()),
    setPendingRole: jest.fn().mockResolvedValue(undefined),
    listMembers: jest.fn().mockResolvedValue([]),
    removeMember: jest.fn().mockResolvedValue(member()),
    insertPasswordLink: jest.fn().mockResolvedValue(undefined),
    linkIsUsable: jest.fn().mockResolvedValue(false),
    useLink: jest.fn().mockResolvedValue(undefined),
    insertSession: jest.fn().mockResolvedValue(undefined),
    findSession: jest.fn().mockResolvedValue(undefined),
    deleteSession: jest.fn().mockResolvedValue(undefined),
    reserveAttempt: jest.fn().mockResolvedValue({ n: 1, retry_after_s: 900 }),
    settleAttempt: jest.fn().mockResolvedValue(undefined),
    isKnown: jest.fn().mockResolvedValue(false),
    markKnown: jest.fn().mockResolvedValue(undefined),
    pruneCounters: jest.fn().mockResolvedValue(undefined),
    ...overrides,
  } as unknown as jest.Mocked<MembersRepository>;
}

const service = (repo: MembersRepository) =>
  new MembersService(repo, {
    APP_URL: 'https://app.example.com',
    SESSION_TTL_HOURS: 168,
    SIGN_IN_FAILURES: 5,
    SIGN_IN_EMAIL_FAILURES: 100,
    SIGN_IN_WINDOW_S: 900,
  });
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
    expect(repo.findOrCreate).toHaveBeenCalledWith(ACCOUNT, 'ana@shop.example', 'agent');
    const token = new URL(invited.sign_in_url).searchParams.get('token') ?? '';
    expect(invited.sign_in_url.startsWith('https://app.example.com/set-password?token=')).toBe(true);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [, stored, hours] = repo.insertPasswordLink.mock.calls[0] ?? [];
    expect(hours).toBe(24);
    expect(Buffer.isBuffer(stored) && stored.length).toBe(32);
    expect(stored?.toString('utf8')).not.toContain(token);
  });

  it("refuses to invite an email that belongs to another account's member (409), writing nothing", async () => {
    const repo = repository({ findOrCreate: jest.fn().mockResolvedValue(member({ account_id: 'another' })) });
    expect(await codeOf(service(repo).invite(ACCOUNT, 'ana@shop.example', 'agent'))).toBe('conflict');
    expect(await codeOf(service(repo).createByOperator(ACCOUNT, 'ana@shop.example'))).toBe('conflict');
    expect(repo.insertPasswordLink).not.toHaveBeenCalled();
  });

  it('refuses to invite a colleague who has a password (409): no link to take over their sign-in', async () => {
    const repo = repository({ findOrCreate: jest.fn().mockResolvedValue(member({ password_hash: '$argon2id$…', role: 'owner' })) });
    expect(await codeOf(service(repo).invite(ACCOUNT, 'ana@shop.example', 'agent'))).toBe('conflict');
    expect(repo.insertPasswordLink).not.toHaveBeenCalled();
    expect(repo.setPendingRole).not.toHaveBeenCalled();
  });

  it('re-sends a pending invitation: a new link, with the role now chosen', async () => {
    const repo = repository({ findOrCreate: jest.fn().mockResolvedValue(member({ role: 'agent' })) });
    await service(repo).invite(ACCOUNT, 'ana@shop.example', 'owner');
    expect(repo.setPendingRole).toHaveBeenCalledWith('m-1', 'owner');
    expect(repo.insertPasswordLink).toHaveBeenCalledTimes(1);
  });

  it('admin user create makes an owner; for an existing member of the account, a new link (a reset)', async () => {
    const repo = repository({ findOrCreate: jest.fn().mockResolvedValue(member({ role: 'owner', password_hash: 'x' })) });
    const created = await service(repo).createByOperator(ACCOUNT, 'ana@shop.example');
    expect(repo.findOrCreate).toHaveBeenCalledWith(ACCOUNT, 'ana@shop.example', 'owner');
    expect(Object.keys(created).sort()).toEqual(['sign_in_url', 'user']);
    expect(repo.insertPasswordLink).toHaveBeenCalledTimes(1);
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

  it('signs in with the right password (argon2id): clears its (email, address) count, gives back the others, remembers the address', async () => {
    const hash = await argon2.hash('correct horse battery', { type: argon2.argon2id });
    expect(hash.startsWith('$argon2id$')).toBe(true);
    const repo = repository({ findByEmail: jest.fn().mockResolvedValue(member({ password_hash: hash })) });
    const session = await service(repo).signIn('Ana@shop.example', 'correct horse battery', '10.0.0.1');
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(repo.settleAttempt).toHaveBeenCalledWith(['pair:ana@shop.example 10.0.0.1'], ['address:10.0.0.1', 'email:ana@shop.example']);
    expect(repo.markKnown).toHaveBeenCalledWith('known:ana@shop.example 10.0.0.1', 30);
    expect(await codeOf(service(repo).signIn('ana@shop.example', 'wrong', '10.0.0.1'))).toBe('unauthorized');
    expect(repo.settleAttempt).toHaveBeenCalledTimes(1);
  });

  it('an unknown email or a member without a password is the same 401 (no hint which)', async () => {
    expect(await codeOf(service(repository()).signIn('nobody@shop.example', 'x', '10.0.0.1'))).toBe('unauthorized');
    const invited = repository({ findByEmail: jest.fn().mockResolvedValue(member()) });
    expect(await codeOf(service(invited).signIn('ana@shop.example', 'x', '10.0.0.1'))).toBe('unauthorized');
  });

  it('throttles before any password check: past the (email, address), address or email count → 429 with Retry-After', async () => {
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
    expect(pair.findByEmail).not.toHaveBeenCalled();
    expect(await codeOf(service(over('address:', 20)).signIn('bo@shop.example', 'x', '10.0.0.1'))).toBe('rate_limited');
    expect(await codeOf(service(over('email:', 100)).signIn('bo@shop.example', 'x', '10.0.0.1'))).toBe('rate_limited');
    expect(verify).not.toHaveBeenCalled();
  });

  it('the per-email count does not apply to an address the member signed in from', async () => {
    const repo = repository({ isKnown: jest.fn().mockResolvedValue(true) });
    expect(await codeOf(service(repo).signIn('ana@shop.example', 'x', '10.0.0.1'))).toBe('unauthorized');
    expect(repo.reserveAttempt.mock.calls.map(([key]) => key)).toEqual(['pair:ana@shop.example 10.0.0.1', 'address:10.0.0.1']);
  });

  it('an unusable set-password link is 404 before any hashing; a valid one hashes the password with argon2id and signs in', async () => {
    const hash = jest.spyOn(passwords, 'hash');
    const junk = repository();
    expect(await codeOf(service(junk).setPassword('token', 'a long password'))).toBe('not_found');
    expect(hash).not.toHaveBeenCalled();
    expect(junk.useLink).not.toHaveBeenCalled();

    const repo = repository({ linkIsUsable: jest.fn().mockResolvedValue(true), useLink: jest.fn().mockResolvedValue(member()) });
    const session = await service(repo).setPassword('token', 'a long password');
    expect(hash).toHaveBeenCalledTimes(1);
    expect(session.member.id).toBe('m-1');
    const stored = repo.useLink.mock.calls[0]?.[1] as string;
    expect(await argon2.verify(stored, 'a long password')).toBe(true);
    expect(stored.startsWith('$argon2id$')).toBe(true);
  });
});
