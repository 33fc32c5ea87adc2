import { queryRows } from '@svc/persistence';
import { accountsFor, createTestDatabase, REPO_ROOT, TestDatabase } from '@svc/testing';
import { ApiKeyRow } from '@svc/accounts';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

describe('admin command line (built, real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  const admin = (...args: string[]) => {
    const result = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/apps/admin/src/main.js'), ...args], {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: db.url },
      encoding: 'utf8',
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const json = (stdout: string) => {
    expect(stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(stdout);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ dataSource } = await accountsFor(db.url));
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('account create prints one JSON object with the account and its key, shown once', async () => {
    const result = admin('account', 'create', '--name', 'Acme Rentals', '--plan', 'scale');
    expect(result.status).toBe(0);
    const output = json(result.stdout);
    expect(output).toEqual({
      account: { id: expect.any(String), name: 'Acme Rentals', plan: 'scale' },
      api_key: expect.stringMatching(/^svc_cust_[0-9A-Za-z]{49}$/),
      key: { id: expect.any(String), prefix: output.api_key.slice(0, 13), created_at: expect.any(String) },
    });
    const [stored] = await queryRows<{ hash: string }>(
      dataSource,
      'SELECT encode(key_hash, $2) AS hash FROM gateway.api_keys WHERE id = $1',
      [output.key.id, 'hex'],
    );
    expect(stored.hash).not.toContain(output.api_key);
    expect(JSON.stringify(await queryRows<ApiKeyRow>(dataSource, 'SELECT * FROM gateway.api_keys'))).not.toContain(
      output.api_key.slice(13),
    );
  });

  it('account set-plan, key create and key revoke each print one JSON object', async () => {
    const { account } = json(admin('account', 'create', '--name', 'Beta', '--plan', 'growth').stdout);
    expect(json(admin('account', 'set-plan', '--account', account.id, '--plan', 'scale').stdout)).toEqual({
      account: { ...account, plan: 'scale' },
    });
    const created = json(admin('key', 'create', '--account', account.id).stdout);
    expect(created.api_key).toMatch(/^svc_cust_/);
    const revoked = json(admin('key', 'revoke', '--key-id', created.key.id).stdout);
    expect(revoked.key).toMatchObject({ id: created.key.id, revoked_at: expect.stringMatching(/\+00:00$/) });
  });

  it.each([
    [['account', 'create', '--name', 'X', '--plan', 'gold'], /plan.*one of starter, growth, scale/],
    [['account', 'create', '--plan', 'scale'], /--name/],
    [['account', 'set-plan', '--account', 'nope', '--plan', 'scale'], /no account with id nope/],
    [['key', 'create', '--account', '00000000-0000-0000-0000-000000000000'], /no account/],
    [['key', 'revoke', '--key-id', '00000000-0000-0000-0000-000000000000'], /no key/],
    [['frobnicate'], /unknown command/],
    [[], /Usage/],
  ])('%j → a clear message on stderr, nothing on stdout, non-zero exit', (args, message) => {
    const result = admin(...args);
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});
