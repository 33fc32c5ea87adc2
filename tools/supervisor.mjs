// A supervisor, as Kubernetes is for a pod: each named process that exits is started again after a
// delay that doubles while it keeps failing (1 s up to 30 s; back to the first once it ran a minute).
import { spawn } from 'node:child_process';

/**
 * @typedef {object} Command How to start one named process.
 * @property {string} file
 * @property {string[]} args
 * @property {NodeJS.ProcessEnv} env
 */

/**
 * Starts `names`, each as `command(name)` = { file, args, env }, its output prefixed with its name
 * on `write`. Returns `stop(signal)`, which ends them all and resolves once every one has exited.
 * @param {string[]} names
 * @param {(name: string) => Command} command
 * @param {{ write?: (text: string) => unknown, firstMs?: number, maxMs?: number, stableMs?: number }} [options]
 * @returns {(signal?: NodeJS.Signals) => Promise<unknown[]>}
 */
export function supervise(
  names,
  command,
  { write = (text) => process.stdout.write(text), firstMs = 1_000, maxMs = 30_000, stableMs = 60_000 } = {},
) {
  /** @type {Map<string, import('node:child_process').ChildProcess>} */
  const children = new Map();
  let stopping = false;
  /** @param {string} name */
  const label = (name) => name.padEnd(18);

  /**
   * @param {string} name
   * @param {number} delayMs
   */
  const start = (name, delayMs) => {
    const { file, args, env } = command(name);
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    const startedAt = Date.now();
    children.set(name, child);
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream.on('data', (chunk) => {
        const lines = (rest + chunk).split('\n');
        rest = /** @type {string} */ (lines.pop()); // split always gives at least one element
        for (const line of lines) write(`${label(name)} | ${line}\n`);
      });
    }
    child.on('exit', (code, signal) => {
      if (stopping) return write(`${label(name)} | exited (${code ?? signal})\n`);
      const wait = Date.now() - startedAt > stableMs ? firstMs : delayMs;
      write(`${label(name)} | exited (${code ?? signal}); restarting in ${wait / 1000} s\n`);
      setTimeout(() => stopping || start(name, Math.min(wait * 2, maxMs)), wait);
    });
  };
  for (const name of names) start(name, firstMs);

  return (signal = 'SIGTERM') => {
    stopping = true;
    const running = [...children.values()].filter((c) => c.exitCode === null && c.signalCode === null);
    for (const child of running) child.kill(signal);
    return Promise.all(running.map((c) => new Promise((resolve) => c.once('exit', resolve))));
  };
}
