import {
  ACCOUNTS_MIGRATIONS,
  ACCOUNTS_SCHEMA,
  AccountNotFoundError,
  AccountRow,
  AccountsRepository,
  AccountsService,
  KeyNotFoundError,
} from '@svc/accounts';
import { E164, ErrorResponseDto, EVENT_KINDS, EventKind, isEventKind, isPlan, Plan, PLANS, sampleEventData } from '@svc/contracts';
import {
  AmqpClient,
  consumerQueueOf,
  countParked,
  domainMessage,
  DOMAIN_EXCHANGE,
  Publisher,
  replayParked,
  showParked,
  UnknownQueueError,
} from '@svc/messaging';
import { createDataSource, migrate } from '@svc/persistence';
import { Config, createLogger, GATEWAY_CONTEXT_HEADER, InternalAuth, loadConfig } from '@svc/platform';
import { connect } from 'amqplib';
import type { ChannelModel } from 'amqplib';
import { randomUUID } from 'node:crypto';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminConfigSpec } from './admin.config';

type AdminConfig = Config<typeof adminConfigSpec>;

const NO_SECRET =
  'set ADMIN_INTERNAL_KEY to the key whose public half the apps list as `admin:` in INTERNAL_PUBLIC_KEYS (on a development machine, start the product once with `npm start`)';

/** The admin command line's signer (its own key, `iss` admin). */
function adminAuth(config: AdminConfig): InternalAuth {
  return new InternalAuth({ name: 'admin', signingKey: config.ADMIN_INTERNAL_KEY });
}

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

function eventKind(value: string): EventKind {
  if (!isEventKind(value)) throw new InvalidArgumentError(`must be one of ${EVENT_KINDS.join(', ')}`);
  return value;
}

function positive(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a whole number above 0');
  return Number(value);
}

function e164(value: string): string {
  if (!E164.test(value.trim())) throw new InvalidArgumentError('must be an E.164 number such as +15550001234');
  return value.trim();
}

function nonEmpty(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError('must not be empty');
  return value.trim();
}

type Work = (accounts: AccountsService, config: AdminConfig) => Promise<Output>;
type BrokerWork = (broker: ChannelModel) => Promise<Output>;

async function withAccounts(config: AdminConfig, work: Work): Promise<Output> {
  const dataSource = await createDataSource({
    schema: ACCOUNTS_SCHEMA,
    url: config.DATABASE_URL,
    migrations: ACCOUNTS_MIGRATIONS,
    poolSize: 2,
    applicationName: 'admin',
  }).initialize();
  try {
    await migrate(dataSource);
    return await work(new AccountsService(new AccountsRepository(dataSource)), config);
  } finally {
    await dataSource.destroy();
  }
}

const BROKER_WAIT_MS = 10_000;

/** One connection to RabbitMQ for a command (the parking queues), closed after it. */
async function withBroker(config: AdminConfig, work: BrokerWork): Promise<Output> {
  const broker = await connect(config.RABBITMQ_URL, { timeout: BROKER_WAIT_MS, clientProperties: { connection_name: 'admin' } }).catch(
    (err: Error) => {
      throw new Error(`RabbitMQ did not answer at ${new URL(config.RABBITMQ_URL).host}: ${err.message}`);
    },
  );
  try {
    return await work(broker);
  } finally {
    await broker.close().catch(() => undefined);
  }
}

const RECORD_WAIT_MS = 15_000;

/**
 * The feed id events-api gave the event with producer UUID `uuid` (asked through its internal
 * route with a context signed for it), waiting up to RECORD_WAIT_MS for it to be recorded.
 */
async function feedIdOf(config: AdminConfig, account: AccountRow, uuid: string): Promise<number> {
  const auth = adminAuth(config);
  const deadline = Date.now() + RECORD_WAIT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const context = await auth.sign('events-api', { account, keyId: 'admin', requestId: randomUUID() });
    try {
      const response = await fetch(`${config.EVENTS_API_URL}/internal/events/by-uuid/${uuid}`, {
        headers: { [GATEWAY_CONTEXT_HEADER]: context },
        signal: AbortSignal.timeout(5_000),
      });
      if (response.ok) return ((await response.json()) as { id: number }).id;
      last = `${response.status}`;
      if (response.status !== 404) throw new Error(`events-api refused the look-up: ${response.status} ${await response.text()}`);
    } catch (err) {
      if ((err as Error).message.startsWith('events-api refused')) throw err;
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(
    `published event ${uuid}, but events-api at ${config.EVENTS_API_URL} did not record it within ${RECORD_WAIT_MS / 1000} s (${last})`,
  );
}

/**
 * A sample event of `kind` for the account, published to the domain exchange exactly as an outbox
 * relay publishes a chat event (confirm channel, persistent, message id = event id): it takes the
 * whole path real events take, into the feed and out to webhooks. Prints the feed id it got (the
 * id a receiver and a feed reader see), once events-api has recorded it.
 */
async function trigger(config: AdminConfig, account: AccountRow, kind: EventKind): Promise<Output> {
  if (config.ADMIN_INTERNAL_KEY === '') throw new Error(`trigger asks events-api for the feed id: ${NO_SECRET}`);
  const accountId = account.id;
  const message = domainMessage(kind, accountId, sampleEventData(kind, { appUrl: config.APP_URL, n: Math.floor(Math.random() * 9000) }));
  const client = new AmqpClient(config.RABBITMQ_URL, createLogger('admin', 'silent'), 'admin');
  const publisher = new Publisher(client, createLogger('admin', 'silent'));
  try {
    await client.start();
    const deadline = Date.now() + BROKER_WAIT_MS;
    while (!publisher.isReady) {
      if (Date.now() > deadline)
        throw new Error(`RabbitMQ did not answer within ${BROKER_WAIT_MS / 1000} s at ${new URL(config.RABBITMQ_URL).host}`);
      await sleep(50);
    }
    await publisher.publish([{ id: message.id, exchange: DOMAIN_EXCHANGE, routingKey: message.kind, body: message }]);
  } finally {
    await client.close();
  }
  return { event_id: await feedIdOf(config, account, message.id), kind, account_id: accountId };
}

/** `https://a.example,https://b.example` → origins (scheme and host); '' → none (any page). */
function origins(value: string): string[] {
  const list = value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return list.map((origin) => {
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    if (
      !url ||
      !['http:', 'https:'].includes(url.protocol) ||
      url.pathname.replace(/\/$/, '') !== '' ||
      url.search ||
      url.hash ||
      url.username
    ) {
      throw new InvalidArgumentError(`${JSON.stringify(origin)} is not an origin such as https://shop.example`);
    }
    return url.origin;
  });
}

/** One call to a service's internal route with a context signed for it (audience = the service) naming the account. */
async function callService(
  config: AdminConfig,
  service: { name: string; url: string },
  account: AccountRow,
  method: string,
  path: string,
  body: unknown,
): Promise<Response> {
  if (config.ADMIN_INTERNAL_KEY === '') throw new Error(`this command calls the ${service.name}: ${NO_SECRET}`);
  const context = await adminAuth(config).sign(service.name, {
    account,
    keyId: 'admin',
    requestId: randomUUID(),
  });
  try {
    return await fetch(`${service.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', [GATEWAY_CONTEXT_HEADER]: context },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new Error(`the ${service.name} did not answer at ${service.url}: ${(err as Error).message}`);
  }
}

/** A write to the chat's internal routes (schema `chat`, which only the chat writes): `what` names the command in errors. */
async function putToChat(config: AdminConfig, account: AccountRow, what: string, path: string, body: unknown): Promise<unknown> {
  const response = await callService(config, { name: 'chat', url: config.CHAT_URL }, account, 'PUT', path, body);
  if (!response.ok) throw new Error(`the chat refused ${what}: ${response.status} ${refusalOf(await response.text())}`);
  return response.json();
}

/** An error body in the contract's shape as one line (its message, then each detail); other bodies as they came. */
function refusalOf(body: string): string {
  try {
    const { error } = JSON.parse(body) as ErrorResponseDto;
    return [error.message, ...(error.details ?? []).map((detail) => detail.message)].join(' ');
  } catch {
    return body;
  }
}

/** The pages allowed to use an account's widget, stored by the chat. */
async function setWidgetOrigins(config: AdminConfig, account: AccountRow, list: string[]): Promise<Output> {
  return { widget: await putToChat(config, account, 'widget origins', '/internal/chat/widget-settings', { origins: list }) };
}

/** The account's WhatsApp Business number (Cloud API phone number id and the number itself), stored by the chat. */
async function connectWhatsapp(config: AdminConfig, account: AccountRow, phoneNumberId: string, number: string): Promise<Output> {
  return {
    whatsapp: await putToChat(config, account, 'whatsapp connect', '/internal/chat/whatsapp-number', {
      phone_number_id: phoneNumberId,
      number,
    }),
  };
}

/**
 * A team member of the account (schema `console`, which only the console writes) and their one-time
 * set-password link (24 h): `{"user": {"id","email"}, "sign_in_url"}`.
 */
async function createUser(config: AdminConfig, account: AccountRow, email: string): Promise<Output> {
  const response = await callService(config, { name: 'console', url: config.CONSOLE_URL }, account, 'POST', '/internal/console/users', {
    email,
  });
  if (response.status !== 201) throw new Error(`the console refused the member: ${response.status} ${await response.text()}`);
  return (await response.json()) as Output;
}

/** Removes the account's member with this email (their sessions end at once): `{"removed": {"id","email","role",…}}`. */
async function removeUser(config: AdminConfig, account: AccountRow, email: string): Promise<Output> {
  const console_ = { name: 'console', url: config.CONSOLE_URL };
  const response = await callService(config, console_, account, 'POST', '/internal/console/users/remove', { email });
  if (response.status === 404) throw new Error(`no member with email ${email} in account ${account.id}`);
  if (response.status !== 200) throw new Error(`the console refused the removal: ${response.status} ${refusalOf(await response.text())}`);
  return (await response.json()) as Output;
}

/** Options several commands take: the account, a consumer queue (or its parking queue). */
const ACCOUNT_OPTION = ['--account <id>', 'account id'] as const;
const QUEUE_OPTION = ['--queue <queue>', 'a consumer queue or its parking queue, e.g. events-api.domain'] as const;

function program(run: (work: Work) => Promise<void>, runBroker: (work: BrokerWork) => Promise<void>): Command {
  /** A command on the account of `--account`, read first: an unknown id fails before anything is done. */
  const runOnAccount = (accountId: string, work: (config: AdminConfig, account: AccountRow) => Promise<Output>) =>
    run(async (accounts, config) => work(config, await accounts.getAccount(accountId)));
  const root = new Command('admin')
    .description('Operator commands: accounts, plans, API keys, widget settings, parked messages.')
    .exitOverride();
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
    .requiredOption(...ACCOUNT_OPTION)
    .requiredOption('--plan <plan>', `one of ${PLANS.join(', ')}`, plan)
    .action((opts: { account: string; plan: Plan }) =>
      run(async (accounts) => ({ account: await accounts.setPlan(opts.account, opts.plan) })),
    );
  const key = root.command('key').description('API keys.');
  key
    .command('create')
    .description('Create another API key for an account (shown once).')
    .requiredOption(...ACCOUNT_OPTION)
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
  root
    .command('trigger')
    .description('Produce a realistic sample event through the same path real chat events take (feed and webhooks).')
    .argument('<kind>', `one of ${EVENT_KINDS.join(', ')}`, eventKind)
    .requiredOption(...ACCOUNT_OPTION)
    .action((kind: EventKind, opts: { account: string }) =>
      runOnAccount(opts.account, (config, account) => trigger(config, account, kind)),
    );
  const parked = root.command('parked').description('Messages a consumer parked because they can never succeed as they are.');
  parked
    .command('list')
    .description(
      'Each parking queue with its count; with --queue and --show, the first messages (where they belong and why, never their personal data).',
    )
    .option(...QUEUE_OPTION)
    .option('--show <n>', 'how many messages of --queue to show', positive)
    .action((opts: { queue?: string; show?: number }) =>
      runBroker(async (broker) => {
        if (opts.show !== undefined && opts.queue === undefined) throw new InvalidArgumentError('--show needs --queue');
        if (opts.queue === undefined) return { queues: await countParked(broker) };
        const queue = consumerQueueOf(opts.queue);
        const { messages, shown } = await showParked(broker, queue, opts.show ?? 0);
        return { queue, parking_queue: `${queue}.parked`, messages, shown };
      }),
    );
  parked
    .command('replay')
    .description('Move parked messages back to their queue, to be processed again (after fixing what made them fail).')
    .requiredOption(...QUEUE_OPTION)
    .option('--limit <n>', 'at most this many (default: all parked now)', positive)
    .action((opts: { queue: string; limit?: number }) =>
      runBroker(async (broker) => {
        const queue = consumerQueueOf(opts.queue);
        return { queue, replayed: await replayParked(broker, queue, opts.limit) };
      }),
    );
  const user = root.command('user').description('Team members of the console.');
  user
    .command('create')
    .description(
      'Create a team member (an owner; an existing member keeps their role and gets a new link) and print their one-time set-password link (24 h).',
    )
    .requiredOption(...ACCOUNT_OPTION)
    .requiredOption('--email <email>', "the member's email address", nonEmpty)
    .action((opts: { account: string; email: string }) =>
      runOnAccount(opts.account, (config, account) => createUser(config, account, opts.email)),
    );
  user
    .command('remove')
    .description("Remove a team member: their sessions end at once (never the account's last owner).")
    .requiredOption(...ACCOUNT_OPTION)
    .requiredOption('--email <email>', "the member's email address", nonEmpty)
    .action((opts: { account: string; email: string }) =>
      runOnAccount(opts.account, (config, account) => removeUser(config, account, opts.email)),
    );
  const widget = root.command('widget').description("The chat widget's settings.");
  widget
    .command('origins')
    .description("Set the pages (origins) allowed to use the account's widget; an empty list allows any page.")
    .requiredOption(...ACCOUNT_OPTION)
    .requiredOption('--origins <list>', 'comma-separated origins, e.g. https://a.example,https://b.example (empty: any)', origins)
    .action((opts: { account: string; origins: string[] }) =>
      runOnAccount(opts.account, (config, account) => setWidgetOrigins(config, account, opts.origins)),
    );
  root
    .command('whatsapp')
    .description("The account's WhatsApp Business number.")
    .command('connect')
    .description(
      "Connect the account's WhatsApp Business number: inbound messages to it become chat conversations; replies go out from it.",
    )
    .requiredOption(...ACCOUNT_OPTION)
    .requiredOption('--phone-number-id <id>', 'the Cloud API phone number id', nonEmpty)
    .requiredOption('--number <e164>', 'the number itself, E.164 (+15550001234): shown to customers for phone confirmation', e164)
    .action((opts: { account: string; phoneNumberId: string; number: string }) =>
      runOnAccount(opts.account, (config, account) => connectWhatsapp(config, account, opts.phoneNumberId, opts.number)),
    );
  return root;
}

/** Runs one admin command; returns the process exit code. */
export async function runCli(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let exitCode = 0;
  const run = async (work: Work) => {
    try {
      const output = await withAccounts(loadConfig(adminConfigSpec, env), work);
      io.out(`${JSON.stringify(output)}\n`);
    } catch (err) {
      if (!(err instanceof AccountNotFoundError || err instanceof KeyNotFoundError)) throw err;
      io.err(`error: ${err.message}\n`);
      exitCode = 1;
    }
  };
  const runBroker = async (work: BrokerWork) => {
    try {
      io.out(`${JSON.stringify(await withBroker(loadConfig(adminConfigSpec, env), work))}\n`);
    } catch (err) {
      if (err instanceof InvalidArgumentError) {
        io.err(`error: ${err.message}\n`);
        exitCode = 2;
        return;
      }
      if (!(err instanceof UnknownQueueError)) throw err;
      io.err(`error: ${err.message}\n`);
      exitCode = 1;
    }
  };
  const cli = program(run, runBroker);
  // Help and usage errors go to stderr (stdout is the JSON result) and return instead of exiting.
  const quiet = (command: Command): void => {
    command.exitOverride().configureOutput({ writeOut: io.err, writeErr: io.err });
    command.commands.forEach(quiet);
  };
  quiet(cli);
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
