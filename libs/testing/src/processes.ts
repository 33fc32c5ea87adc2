import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The workspace root (the directory with nx.json), from the sources or from dist/. */
export const REPO_ROOT = ((): string => {
  let dir = __dirname;
  while (!existsSync(join(dir, 'nx.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export interface RunningProcess {
  process: ChildProcess;
  output: () => string;
  /** Sends a signal and waits for the process to end; returns its exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

export interface RunningApp extends RunningProcess {
  url: string;
  port: number;
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
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/apps', name, 'src/main.js')], {
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'test', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  const app: RunningApp = { ...track(child), url, port };
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
