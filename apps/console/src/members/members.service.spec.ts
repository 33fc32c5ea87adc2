import { ApiError } from '@svc/platform';
import * as argon2 from 'argon2';
import { MemberRow, MembersRepository } from './members.repository';
import { MembersService } from './members.service';

const ACCOUNT = '7f3d2c1b-0000-4000-8000-000000000001';
const member = (overrides: Partial<MemberRow> = {}): MemberRow => ({
  id: 'm-1',
  account_id: ACCOUNT,
  email: 'ana@shop.example',
  password_hash: null,
  created_at: '2026-11-24T01:00:00.000000+00:00',
  ...overrides,
});

function repository(overrides: Partial<Record<keyof MembersRepository, jest.Mock>> = {}): jest.Mocked<MembersRepository> {
  return {
    findByEmail: jest.fn().mockResolvedValue(undefined),
    findOrCreate: jest.fn().mockResolvedValue(member()),
    listMembers: jest.fn().mockResolvedValue([]),
    insertPasswordLink: jest.fn().mockResolvedValue(undefined),
    useLink: jest.fn().mockResolvedValue(undefined),
    insertSession: jest.fn().mockResolvedValue(undefined),
    findSession: jest.fn().mockResolvedValue(undefined),
    deleteSession: jest.fn().mockResolvedValue(undefined),
    countFailures: jest.fn().mockResolvedValue({ email: 0, address: 0, oldest_s: 0 }),
    recordFailure: jest.fn().mockResolvedValue(undefined),
    clearFailures: jest.fn().mockResolvedValue(undefined),
    ...overrides,
  } as unknown as jest.Mocked<MembersRepository>;
}

const service = (repo: MembersRepository) => new MembersService(repo, 'https://app.example.com', 168, { failures: 5, windowS: 900 });
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err: unknown) => (err instanceof ApiError ? err.code : String(err)),
  );

describe('MembersService', () => {
  it('invites: a one-time link under APP_URL whose token is stored only as a hash', async () => {
    const repo = repository();
    const invited = await service(repo).invite(ACCOUNT, 'ana@shop.example');
    expect(invited.user).toEqual({ id: 'm-1', email: 'ana@shop.example' });
    const token = new URL(invited.sign_in_url).searchParams.get('token') ?? '';
    expect(invited.sign_in_url.startsWith('https://app.example.com/set-password?token=')).toBe(true);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [, stored, hours] = repo.insertPasswordLink.mock.calls[0] ?? [];
    expect(hours).toBe(24);
    expect(Buffer.isBuffer(stored) && stored.length).toBe(32);
    expect(stored?.toString('utf8')).not.toContain(token);
  });

  it("refuses to invite an email that belongs to another account's member (409), writing nothing", async () => {
    const repo = repository({ findByEmail: jest.fn().mockResolvedValue(member({ account_id: 'another' })) });
    expect(await codeOf(service(repo).invite(ACCOUNT, 'ana@shop.example'))).toBe('conflict');
    expect(repo.insertPasswordLink).not.toHaveBeenCalled();
  });

  it('signs in with the right password (argon2id) and clears the failures; a wrong one is 401 and counted', async () => {
    const hash = await argon2.hash('correct horse battery', { type: argon2.argon2id });
    expect(hash.startsWith('$argon2id$')).toBe(true);
    const repo = repository({ findByEmail: jest.fn().mockResolvedValue(member({ password_hash: hash })) });
    const session = await service(repo).signIn('ana@shop.example', 'correct horse battery', '10.0.0.1');
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(repo.clearFailures).toHaveBeenCalledWith('ana@shop.example');
    expect(await codeOf(service(repo).signIn('ana@shop.example', 'wrong', '10.0.0.1'))).toBe('unauthorized');
    expect(repo.recordFailure).toHaveBeenCalledWith('ana@shop.example', '10.0.0.1');
  });

  it('an unknown email or a member without a password is the same 401 (no hint which)', async () => {
    expect(await codeOf(service(repository()).signIn('nobody@shop.example', 'x', '10.0.0.1'))).toBe('unauthorized');
    const invited = repository({ findByEmail: jest.fn().mockResolvedValue(member()) });
    expect(await codeOf(service(invited).signIn('ana@shop.example', 'x', '10.0.0.1'))).toBe('unauthorized');
  });

  it('throttles: at the limit per email (or 4× per address) it answers 429 with Retry-After and checks no password', async () => {
    const perEmail = repository({ countFailures: jest.fn().mockResolvedValue({ email: 5, address: 5, oldest_s: 300 }) });
    const refused = await service(perEmail)
      .signIn('ana@shop.example', 'x', '10.0.0.1')
      .catch((err: ApiError) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('rate_limited');
    expect((refused as ApiError).headers['retry-after']).toBe('600');
    expect(perEmail.findByEmail).not.toHaveBeenCalled();
    const perAddress = repository({ countFailures: jest.fn().mockResolvedValue({ email: 0, address: 20, oldest_s: 899 }) });
    expect(await codeOf(service(perAddress).signIn('bo@shop.example', 'x', '10.0.0.1'))).toBe('rate_limited');
  });

  it('a used, expired or unknown set-password link is 404; a valid one hashes the password with argon2id and signs in', async () => {
    expect(await codeOf(service(repository()).setPassword('token', 'a long password'))).toBe('not_found');
    const repo = repository({ useLink: jest.fn().mockResolvedValue(member()) });
    const session = await service(repo).setPassword('token', 'a long password');
    expect(session.member.id).toBe('m-1');
    const hash = repo.useLink.mock.calls[0]?.[1] as string;
    expect(await argon2.verify(hash, 'a long password')).toBe(true);
    expect(hash.startsWith('$argon2id$')).toBe(true);
  });
});
