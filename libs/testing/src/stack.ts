import { SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ServiceName, serviceUrlSetting } from '@svc/platform';
import { internalKeysEnv } from './internal-keys';
import { DataSource } from 'typeorm';
import { accountsFor } from './accounts';
import { createTestDatabase, TestDatabase } from './database';
import { freePort, runAdmin, RunningApp, startApp } from './processes';
import { createTestVhost, TestVhost } from './rabbitmq';

export interface TestAccount {
  accountId: string;
  key: string;
}

export interface CallInit extends Omit<RequestInit, 'body'> {
  /** Bearer key; defaults to the stack's first account. `null` sends no Authorization header. */
  key?: string | null;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  body?: string;
}

export interface Stack {
  db: TestDatabase;
  /** The suite's own RabbitMQ vhost (its URL is `env.RABBITMQ_URL`). */
  vhost: TestVhost;
  gateway: RunningApp;
  services: Record<string, RunningApp>;
  /** Common environment given to every process (database, internal secret). */
  env: Record<string, string>;
  /** A `scale` account with a key. */
  account: TestAccount;
  /** Another `scale` account with a key, for isolation tests. */
  other: TestAccount;
  dataSource: DataSource;
  newAccount(name?: string): Promise<TestAccount>;
  /** A call to the public API through the gateway: `call('/contacts/x', { method: 'PUT', json: {...} })`. */
  call(path: string, init?: CallInit): Promise<Response>;
  /** Restarts one service (same port), e.g. after a kill -9; `env` is added to its environment from now on (a rotated key). */
  restart(name: string, signal?: NodeJS.Signals, env?: Record<string, string>): Promise<RunningApp>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra environment for every process. */
  env?: Record<string, string>;
  /** Extra environment per app name (`gateway` included). */
  appEnv?: Record<string, Record<string, string>>;
  /** The PostgreSQL server of the stack's database (default: the shared one), e.g. a `PrivatePostgres` to stop. */
  databaseServerUrl?: string;
  /** How long each app may take to become ready (default 20 s); a suite starting many apps on a loaded machine gives more. */
  startTimeoutMs?: number;
}

/**
 * A throw-away database and RabbitMQ vhost, the given services started from `dist/` and a gateway in front of them,
 * with two `scale` accounts: the whole path a business's call takes, over real connections.
 */
export async function startStack(serviceNames: string[], options: StackOptions = {}): Promise<Stack> {
  const [db, vhost] = await Promise.all([createTestDatabase(options.databaseServerUrl), createTestVhost()]);
  const env = {
    DATABASE_URL: db.url,
    RABBITMQ_URL: vhost.url,
    // Real random keys and secrets: apps refuse the published development defaults. Each calling app
    // has its own key (sign as one: InternalAuth.fromEnv('console', stack.env)).
    ...internalKeysEnv(),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    // Every suite's visitors come from 127.0.0.1: a suite that tests the limit sets its own.
    VISITOR_CONVERSATIONS_PER_ADDRESS: '100000',
    // Open streams per address are counted in the one Redis every suite shares, and all come from 127.0.0.1.
    VISITOR_STREAMS_PER_ADDRESS: '100000',
    ...options.env,
  };
  const { accounts, dataSource } = await accountsFor(db.url);
  const newAccount = async (name = 'Acme'): Promise<TestAccount> => {
    const created = await accounts.createAccount(name, 'scale');
    return { accountId: created.account.id, key: created.apiKey };
  };
  const services: Record<string, RunningApp> = {};
  // The gateway's port is known up front: the chat asks the gateway which account a widget is.
  const gatewayPort = options.appEnv?.['gateway']?.['PORT'] ?? String(await freePort());
  const gatewayInternalPort = options.appEnv?.['gateway']?.['INTERNAL_PORT'] ?? String(await freePort());
  // contacts-api hands its writes to the chat before answering (ADR 014): it is told the chat's internal port up
  // front, and that there is none when the stack has no chat.
  const chatInternalPort = serviceNames.includes('chat') ? (options.appEnv?.['chat']?.['INTERNAL_PORT'] ?? String(await freePort())) : '';
  // Each service is told where the ones started before it listen (list a service after those it calls).
  const upstreams: Record<string, string> = {};
  const appEnv = (name: string) => ({
    ...env,
    ...upstreams,
    GATEWAY_URL: `http://127.0.0.1:${gatewayInternalPort}`,
    ...(name === 'contacts-api' ? { CHAT_URL: chatInternalPort && `http://127.0.0.1:${chatInternalPort}` } : {}),
    ...(name === 'chat' ? { INTERNAL_PORT: chatInternalPort } : {}),
    ...options.appEnv?.[name],
  });
  // One at a time: each migrates its own schema at start. An app that cannot start stops the ones
  // started before it: a suite whose stack failed leaves no process behind (which would keep Jest alive).
  let gateway: RunningApp;
  try {
    for (const name of serviceNames) {
      services[name] = await startApp(name, appEnv(name), options.startTimeoutMs);
      upstreams[serviceUrlSetting(name as ServiceName)] = services[name].internalUrl;
    }
    gateway = await startApp(
      'gateway',
      { ...appEnv('gateway'), PORT: gatewayPort, INTERNAL_PORT: gatewayInternalPort },
      options.startTimeoutMs,
    );
  } catch (err) {
    await Promise.allSettled(Object.values(services).map((app) => app.stop()));
    await dataSource.destroy().catch(() => undefined);
    await Promise.allSettled([db.drop(), vhost.drop()]);
    throw err;
  }
  const [account, other] = [await newAccount('Acme'), await newAccount('Other')];

  const call = (path: string, init: CallInit = {}): Promise<Response> => {
    const { key, json, headers, ...rest } = init;
    const bearer = key === undefined ? account.key : key;
    return fetch(`${gateway.url}/api/v1${path}`, {
      ...rest,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        ...(headers as Record<string, string> | undefined),
      },
      body: json === undefined ? rest.body : JSON.stringify(json),
    } as RequestInit);
  };

  return {
    db,
    vhost,
    gateway,
    services,
    env,
    account,
    other,
    dataSource,
    newAccount,
    call,
    restart: async (name, signal = 'SIGKILL', extra = {}) => {
      const running = services[name];
      if (!running) throw new Error(`${name} is not part of this stack`);
      await running.stop(signal);
      options.appEnv = { ...options.appEnv, [name]: { ...options.appEnv?.[name], ...extra } };
      services[name] = await startApp(name, { ...appEnv(name), PORT: String(running.port), INTERNAL_PORT: String(running.internalPort) });
      return services[name];
    },
    stop: async () => {
      await Promise.all([gateway.stop(), ...Object.values(services).map((s) => s.stop())]);
      await dataSource.destroy();
      await Promise.all([db.drop(), vhost.drop()]);
    },
  };
}

/** An `admin` command, as an operator runs it against the stack (its database and the console's internal port). */
export function stackAdmin(stack: Stack, ...args: string[]): SpawnSyncReturns<string> {
  return runAdmin(args, {
    ...process.env,
    DATABASE_URL: stack.env['DATABASE_URL'],
    ADMIN_INTERNAL_KEY: stack.env['ADMIN_INTERNAL_KEY'],
    CONSOLE_URL: stack.services['console']?.internalUrl,
  });
}

/** `admin user create --account ID --email E` as an operator runs it (the built command line) against the stack's console. */
export function adminUserCreate(stack: Stack, email: string, accountId = stack.account.accountId): SpawnSyncReturns<string> {
  return stackAdmin(stack, 'user', 'create', '--account', accountId, '--email', email);
}
