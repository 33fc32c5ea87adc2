import { execute, queryRows } from '@svc/persistence';
import { suiteSchemaDatabase } from '@svc/testing';
import { randomUUID } from 'node:crypto';
import { IDENTITY_MIGRATIONS, IDENTITY_SCHEMA } from '../migrations';
import { IssuedPassesRepository } from './issued-passes.repository';

const DAY_S = 24 * 60 * 60;

describe('IssuedPassesRepository (real PostgreSQL)', () => {
  const db = suiteSchemaDatabase({ schema: IDENTITY_SCHEMA, migrations: IDENTITY_MIGRATIONS, poolSize: 2 });
  let passes: IssuedPassesRepository;

  beforeAll(() => {
    passes = new IssuedPassesRepository(db.dataSource);
  });

  /** Records a 30-day pass that expires `expiresInDays` from now (negative: expired that long ago). */
  const issue = async (expiresInDays: number): Promise<string> => {
    const jti = randomUUID();
    const expiresAt = Math.floor(Date.now() / 1000) + expiresInDays * DAY_S;
    await passes.record({ jti, accountId: randomUUID(), svcId: 1, kid: 'k1', issuedAt: expiresAt - 30 * DAY_S, expiresAt });
    return jti;
  };
  const stored = async (): Promise<string[]> =>
    (await queryRows<{ jti: string }>(db.dataSource, 'SELECT jti FROM identity.issued_passes ORDER BY expires_at')).map((r) => r.jti);

  it('records a pass and answers its expiry as a contract timestamp', async () => {
    const jti = randomUUID();
    const { expires_at } = await passes.record({
      jti,
      accountId: randomUUID(),
      svcId: 7,
      kid: 'k1',
      issuedAt: 1_700_000_000,
      expiresAt: 1_700_000_000 + 30 * DAY_S,
    });
    expect(expires_at).toBe('2023-12-14T22:13:20.000000+00:00');
    await execute(db.dataSource, 'DELETE FROM identity.issued_passes');
  });

  it('prunes, oldest first and one batch at a time, the records of passes expired longer than the retention; keeps the rest', async () => {
    const oldest = await issue(-90);
    const old = await issue(-31);
    const recentlyExpired = await issue(-29);
    const valid = await issue(10);
    expect(await stored()).toEqual([oldest, old, recentlyExpired, valid]);
    expect(await passes.prune(30, 1)).toBe(1);
    expect(await stored()).toEqual([old, recentlyExpired, valid]);
    expect(await passes.prune(30, 5_000)).toBe(1);
    expect(await stored()).toEqual([recentlyExpired, valid]);
    expect(await passes.prune(30, 5_000)).toBe(0);
  });
});
