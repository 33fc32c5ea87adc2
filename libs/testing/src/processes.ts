import { ChildProcess, spawn, spawnSync, SpawnSyncReturns } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The workspace root (the directory with nx.json), from the sources or from dist/. */
export const REPO_ROOT = ((): string => {
  let dir = __dirname;
  while (!existsSync(join(dir, 'nx.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();

/**
 * Ports for the processes a suite starts, below the kernel's ephemeral range (32768 and up, where
 * `listen(0)` and outgoing connections take theirs). A port is chosen some time before its app
 * binds it (the gateway's, before the services that must know it), so a port handed out is
 * reserved on this machine for RESERVED_MS (a file in RESERVATIONS, made exclusively): another
 * Jest process (Nx runs two projects' suites at once) never hands out the same one meanwhile, and
 * cannot let its app answer this suite's calls.
 */
const FIRST_PORT = 20_000;
const PORT_COUNT = 12_000;
const RESERVATIONS = join(tmpdir(), 'svc-test-ports');
const RESERVED_MS = 30 * 60_000;

/** Reserves `port` for this process: false when another process holds it (a reservation older than RESERVED_MS is taken over). */
function reserve(port: number): boolean {
  const file = join(RESERVATIONS, String(port));
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(file).mtimeMs < RESERVED_MS) return false;
      utimesSync(file, new Date(), new Date());
      return true;
    } catch {
      return false;
    }
  }
}

/** A free TCP port on 127.0.0.1, reserved for this process (see RESERVATIONS). */
export async function freePort(): Promise<number> {
  mkdirSync(RESERVATIONS, { recursive: true });
  for (let tries = 0; tries < 500; tries += 1) {
    const port = FIRST_PORT + randomInt(PORT_COUNT);
    if (!reserve(port)) continue;
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    server.close();
    await once(server, 'close');
    return port;
  }
  throw new Error(`no free port in ${FIRST_PORT}–${FIRST_PORT + PORT_COUNT - 1}`);
}

export interface RunningProcess {
  process: ChildProcess;
  output: () => string;
  /** Sends a signal and waits for the process to end; returns its exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

export interface RunningApp extends RunningProcess {
  /** The public listener: what a browser, a business or the Ingress reaches. */
  url: string;
  port: number;
  /** The internal listener (INTERNAL_PORT): `/internal/…` routes and `/metrics`, where the apps reach each other. */
  internalUrl: string;
  internalPort: number;
}

const STOP_TIMEOUT_MS = 20_000;

/** Collects a child's output and knows how to stop it. */
function track(child: ChildProcess): RunningProcess {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | NodeJS.Signals | null);
  return {
    process: child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      // A process that does not end within STOP_TIMEOUT_MS is killed, and says so: teardown must
      // not hang a suite, and a slow shutdown must not go unnoticed.
      const timer = setTimeout(() => {
        process.stderr.write(
          `process ${child.pid} (${child.spawnargs.slice(1).join(' ')}) did not end ${STOP_TIMEOUT_MS} ms after ${signal}; killing it. Its output:\n${output.slice(-2000)}\n`,
        );
        child.kill('SIGKILL');
      }, STOP_TIMEOUT_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Waits until a process prints `marker`; kills it and throws if it exits or takes too long. */
export async function waitForOutput(child: ChildProcess, marker: string, timeoutMs: number): Promise<RunningProcess> {
  const running = track(child);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (running.output().includes(marker)) return running;
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}:\n${running.output()}`);
    await sleep(50);
  }
  await running.stop('SIGKILL');
  throw new Error(`process did not print "${marker}" within ${timeoutMs} ms:\n${running.output()}`);
}

/** Starts a built app (`dist/apps/<name>/src/main.js`) as a process and waits until `probe` answers 200. */
export async function startApp(
  name: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
  probe: '/readyz' | '/healthz' = '/readyz',
): Promise<RunningApp> {
  const port = Number(env['PORT'] ?? (await freePort()));
  const internalPort = Number(env['INTERNAL_PORT'] ?? (await freePort()));
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/apps', name, 'src/main.js')], {
    env: {
      PATH: process.env['PATH'] ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...env,
      PORT: String(port),
      INTERNAL_PORT: String(internalPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  const app: RunningApp = { ...track(child), url, port, internalUrl: `http://127.0.0.1:${internalPort}`, internalPort };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready:\n${app.output()}`);
    try {
      const response = await fetch(`${url}${probe}`);
      if (response.status === 200) return app;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await app.stop('SIGKILL');
  throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${app.output()}`);
}

/** Polls `probe` until it returns something other than undefined; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Retries `check` (every 100 ms) until it passes, or throws its last failure after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

/** The built `admin` command line (dist/) with `args`, `env` its whole environment; waits for it to end. */
export function runAdmin(args: string[], env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(REPO_ROOT, 'dist/apps/admin/src/main.js'), ...args], { env, encoding: 'utf8' });
}

/** What a suite starts and must end: a process or stack (`stop`), a server or connection (`close`), files (`remove`). */
export type SuitePart = { stop(): Promise<unknown> } | { close(): Promise<unknown> } | { remove(): void };

/** A suite's teardown: ends each part in turn, skipping those never started. */
export async function closeAll(...parts: Array<SuitePart | undefined>): Promise<void> {
  for (const part of parts) {
    if (!part) continue;
    if ('stop' in part) await part.stop();
    else if ('close' in part) await part.close();
    else part.remove();
  }
}
