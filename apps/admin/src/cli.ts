import { ACCOUNTS_MIGRATIONS, ACCOUNTS_SCHEMA, AccountNotFoundError, AccountsRepository, AccountsService, KeyNotFoundError } from '@svc/accounts';
import { isPlan, Plan, PLANS } from '@svc/contracts';
import { createDataSource, migrate } from '@svc/persistence';
import { Config, loadConfig } from '@svc/platform';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { adminConfigSpec } from './admin.config';

/** What a command prints: exactly one JSON object on stdout. */
type Output = Record<string, unknown>;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

function plan(value: string): Plan {
  if (!isPlan(value)) throw new InvalidArgumentError(`must be one of ${PLANS.join(', ')}`);
  return value;
}

function nonEmpty(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError('must not be empty');
  return value.trim();
}

async function withAccounts(config: Config<typeof adminConfigSpec>, work: (accounts: AccountsService) => Promise<Output>): Promise<Output> {
  const dataSource = await createDataSource({ schema: ACCOUNTS_SCHEMA, url: config.DATABASE_URL, migrations: ACCOUNTS_MIGRATIONS, poolSize: 2, applicationName: 'admin' }).initialize();
  try {
    await migrate(dataSource);
    return await work(new AccountsService(new AccountsRepository(dataSource)));
  } finally {
    await dataSource.destroy();
  }
}

function program(run: (work: (accounts: AccountsService) => Promise<Output>) => Promise<void>): Command {
  const root = new Command('admin').description('Operator commands: accounts, plans, API keys.').exitOverride();
  const account = root.command('account').description('Accounts and their plans.');
  account
    .command('create')
    .description('Create an account with its first API key (shown once).')
    .requiredOption('--name <name>', 'account name', nonEmpty)
    .requiredOption('--plan <plan>', `one of ${PLANS.join(', ')}`, plan)
    .action((opts: { name: string; plan: Plan }) =>
      run(async (accounts) => {
        const { account: created, key, apiKey } = await accounts.createAccount(opts.name, opts.plan);
        return { account: created, api_key: apiKey, key: { id: key.id, prefix: key.prefix, created_at: key.created_at } };
      }),
    );
  account
    .command('set-plan')
    .description("Change an account's plan (effective within 5 seconds).")
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--plan <plan>', `one of ${PLANS.join(', ')}`, plan)
    .action((opts: { account: string; plan: Plan }) => run(async (accounts) => ({ account: await accounts.setPlan(opts.account, opts.plan) })));
  const key = root.command('key').description('API keys.');
  key
    .command('create')
    .description('Create another API key for an account (shown once).')
    .requiredOption('--account <id>', 'account id')
    .action((opts: { account: string }) =>
      run(async (accounts) => {
        const created = await accounts.createKey(opts.account);
        return { key: { id: created.key.id, prefix: created.key.prefix, created_at: created.key.created_at }, api_key: created.apiKey };
      }),
    );
  key
    .command('revoke')
    .description('Revoke an API key (refused within 5 seconds).')
    .requiredOption('--key-id <id>', 'key id (from `whoami` or `key create`)')
    .action((opts: { keyId: string }) => run(async (accounts) => ({ key: await accounts.revokeKey(opts.keyId) })));
  return root;
}

/** Runs one admin command; returns the process exit code. */
export async function runCli(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let exitCode = 0;
  const run = async (work: (accounts: AccountsService) => Promise<Output>) => {
    try {
      const output = await withAccounts(loadConfig(adminConfigSpec, env), work);
      io.out(`${JSON.stringify(output)}\n`);
    } catch (err) {
      if (!(err instanceof AccountNotFoundError || err instanceof KeyNotFoundError)) throw err;
      io.err(`error: ${err.message}\n`);
      exitCode = 1;
    }
  };
  const cli = program(run).configureOutput({ writeOut: io.err, writeErr: io.err });
  for (const command of cli.commands) command.exitOverride().configureOutput({ writeOut: io.err, writeErr: io.err });
  for (const group of cli.commands) for (const command of group.commands) command.exitOverride().configureOutput({ writeOut: io.err, writeErr: io.err });
  try {
    if (argv.length === 0) {
      cli.outputHelp();
      return 2;
    }
    await cli.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.err(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
