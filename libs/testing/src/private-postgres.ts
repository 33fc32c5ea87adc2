import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries installed (Debian layout: /usr/lib/postgresql/<major>/bin). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => existsSync(join(root, d, 'bin', 'initdb'))) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return join(root, newest, 'bin');
}

/** Runs a server binary as the `postgres` OS user (the server refuses to run as root). */
async function asPostgres(binary: string, args: string[], timeout = 60_000): Promise<string> {
  const command = join(postgresBin(), binary);
  const asRoot = process.getuid?.() === 0;
  const { stdout } = await run(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { timeout });
  return stdout;
}

/**
 * A PostgreSQL server of a suite's own, for fault tests that stop the database: a fresh cluster in
 * a temporary directory (trust authentication, user `postgres`, on 127.0.0.1 and a free port).
 * The shared server on 5432 is never touched. `serverUrl` is what `startStack({ databaseServerUrl })`
 * takes.
 */
export class PrivatePostgres {
  private running = false;

  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/postgres`: where suites create their databases. */
  get serverUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Creates the cluster and starts it, on `port` (default: a free one of this worker's block). */
  static async create(port?: number): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'svc-private-pg-'));
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const data = join(dir, 'data');
    await asPostgres('initdb', ['-D', data, '--auth=trust', '--username=postgres', '--encoding=UTF8', '--locale=C', '--no-sync']);
    const server = new PrivatePostgres(dir, port ?? (await freePort()));
    await server.start();
    return server;
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c fsync=off -c full_page_writes=off -c max_connections=200`;
    await asPostgres('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'server.log'),
      '-o',
      options,
      '-w',
      '-t',
      '60',
      'start',
    ]);
    this.running = true;
  }

  /** Stops the server (fast shutdown: sessions are ended, as in a restart of the database). */
  async stop(): Promise<void> {
    await asPostgres('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'fast', '-w', '-t', '60', 'stop']);
    this.running = false;
  }

  /** A suite's teardown: starts the server again (a failed test may have left it stopped), stops `stack`, then `destroy()`. */
  async destroyAfter(stack: { stop(): Promise<void> } | undefined): Promise<void> {
    await this.start().catch(() => undefined);
    await stack?.stop();
    await this.destroy();
  }

  /** Stops the server if it runs and removes its files. */
  async destroy(): Promise<void> {
    if (this.running)
      await this.stop().catch(() => asPostgres('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', 'stop']).catch(() => undefined));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
