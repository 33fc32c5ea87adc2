// Runs every web app of dist/apps as a child process with its own logs prefixed, restarts one that
// exits, forwards SIGINT and SIGTERM (each app drains and exits), and prints the gateway's URL once it is ready.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { seed } from './demo.mjs';
import { startDevChannels } from './dev-channels.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const apps = readdirSync(join(root, 'apps'))
  .sort()
  .filter((app) => existsSync(join(root, 'dist/apps', app, 'src/app.js')));

// Settings one app needs on this machine: the chat sits behind the gateway here (in Kubernetes,
// behind the Ingress), so the visitor address it counts new conversations by is the gateway's X-Forwarded-For.
const APP_ENV = { chat: { TRUST_PROXY: 'loopback' } };
// Development stand-ins for SMTP and the WhatsApp Cloud API (DEV_CHANNELS=false: use the ones configured).
const devChannels = process.env.DEV_CHANNELS === 'false' ? null : await startDevChannels();
const appEnv = { ...(devChannels?.env ?? {}), ...process.env };

// A supervisor, as Kubernetes is for a pod: an app that exits is started again after a delay that
// doubles while it keeps failing (1 s up to 30 s; back to 1 s once it has run for a minute).
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 30_000;
const STABLE_MS = 60_000;
const children = new Map();
let stopping = false;

function start(app, delayMs = RESTART_FIRST_MS) {
  const child = spawn(process.execPath, [join(root, 'dist/apps', app, 'src/main.js')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...appEnv, ...APP_ENV[app] },
  });
  const startedAt = Date.now();
  children.set(app, child);
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) process.stdout.write(`${app.padEnd(18)} | ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    if (stopping) return process.stdout.write(`${app.padEnd(18)} | exited (${code ?? signal})\n`);
    const wait = Date.now() - startedAt > STABLE_MS ? RESTART_FIRST_MS : delayMs;
    process.stdout.write(`${app.padEnd(18)} | exited (${code ?? signal}); restarting in ${wait / 1000} s\n`);
    setTimeout(() => stopping || start(app, Math.min(wait * 2, RESTART_MAX_MS)), wait);
  });
}
for (const app of apps) start(app);

function stop(signal) {
  stopping = true;
  const running = [...children.values()].filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) child.kill(signal);
  Promise.all(running.map((c) => new Promise((r) => c.on('exit', r)))).then(() => process.exit(0));
}
process.on('SIGINT', () => stop('SIGTERM'));
process.on('SIGTERM', () => stop('SIGTERM'));

const port = process.env.PORT ?? '3000';
for (let i = 0; i < 300 && !stopping; i += 1) {
  try {
    if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) {
      process.stdout.write(`\nThe API is ready at http://localhost:${port}/api/v1/ (running: ${apps.join(', ')}).\n`);
      process.stdout.write(`Create an account: npm run --silent admin -- account create --name "Acme" --plan scale\n`);
      process.stdout.write(
        `The team's console: http://localhost:${port}/ (a member's sign-in link: npm run --silent admin -- user create --account ID --email you@example.com)\n`,
      );
      if (process.env.CHAT_DEMO_KEY) {
        await seed(`http://127.0.0.1:${port}`, process.env.CHAT_DEMO_KEY)
          .then(() => process.stdout.write(`The demo shop with the chat widget: http://localhost:${port}/chat/demo\n`))
          .catch((err) => process.stdout.write(`The demo shop could not be set up: ${err.message}\n`));
      }
      process.stdout.write('\n');
      break;
    }
  } catch {
    // not listening yet
  }
  await sleep(200);
}
