import { ACCOUNTS_MIGRATIONS, ACCOUNTS_SCHEMA, AccountsRepository, AccountsService } from '@svc/accounts';
import { createDataSource, migrate } from '@svc/persistence';
import { DataSource } from 'typeorm';

/** The accounts schema of a test database, migrated, with the service operators use. */
export async function accountsFor(url: string): Promise<{ accounts: AccountsService; dataSource: DataSource }> {
  const dataSource = await createDataSource({ schema: ACCOUNTS_SCHEMA, url, migrations: ACCOUNTS_MIGRATIONS, poolSize: 2 }).initialize();
  await migrate(dataSource);
  return { accounts: new AccountsService(new AccountsRepository(dataSource)), dataSource };
}
