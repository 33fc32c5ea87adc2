import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const REPO_ROOT = resolve(__dirname, '../../..');

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

export interface RunningApp {
  url: string;
  port: number;
  process: ChildProcess;
  output: () => string;
  /** Sends a signal and waits for the process to end; returns its exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

/** Starts a built app (`dist/apps/<name>/src/main.js`) as a process and waits until `probe` answers 200. */
export async function startApp(name: string, env: Record<string, string>, timeoutMs = 20_000, probe: '/readyz' | '/healthz' = '/readyz'): Promise<RunningApp> {
  const port = Number(env['PORT'] ?? (await freePort()));
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/apps', name, 'src/main.js')], {
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'test', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | NodeJS.Signals | null);
  const app: RunningApp = {
    url,
    port,
    process: child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready:\n${output}`);
    try {
      const response = await fetch(`${url}${probe}`);
      if (response.status === 200) return app;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await app.stop('SIGKILL');
  throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${output}`);
}
