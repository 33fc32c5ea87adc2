import { spawn } from 'node:child_process';
import { freePort, RunningProcess, waitForOutput } from './processes';

/** A Redis of the test's own, on a free port, that the test may stop and start (never the shared one). */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit; its data is gone (nothing is saved). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT); it then answers what it was sent. */
  resume(): void;
}

const READY = 'Ready to accept connections';

/** Spawns `redis-server` (no persistence, loopback only) and waits until it accepts connections. */
export async function startPrivateRedis(timeoutMs = 10_000): Promise<PrivateRedis> {
  const port = await freePort();
  let running: RunningProcess | undefined;
  const start = async () => {
    if (running) return;
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    running = await waitForOutput(child, READY, timeoutMs);
  };
  const stop = async () => {
    const stopping = running;
    running = undefined;
    stopping?.process.kill('SIGCONT'); // a paused server could not act on SIGTERM
    await stopping?.stop('SIGTERM');
  };
  const signal = (name: NodeJS.Signals) => {
    if (!running) throw new Error('the private Redis is not running');
    running.process.kill(name);
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, pause: () => signal('SIGSTOP'), resume: () => signal('SIGCONT') };
}
