// Runs every web app of dist/apps as a child process with its own logs prefixed, restarts one that
// exits, forwards SIGINT and SIGTERM (each app drains and exits), and prints the gateway's URL once it is ready.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { seed } from './demo.mjs';
import { startDevChannels } from './dev-channels.mjs';
import { supervise } from './supervisor.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const apps = readdirSync(join(root, 'apps'))
  .sort()
  .filter((app) => existsSync(join(root, 'dist/apps', app, 'src/app.js')));

// Settings one app needs on this machine: the chat sits behind the gateway here (in Kubernetes,
// behind the Ingress), so the visitor address it counts new conversations by is the gateway's X-Forwarded-For.
/** @type {Record<string, NodeJS.ProcessEnv>} */
const APP_ENV = { chat: { TRUST_PROXY: 'loopback' } };
// Development stand-ins for SMTP and the WhatsApp Cloud API (DEV_CHANNELS=false: use the ones configured).
const devChannels = process.env.DEV_CHANNELS === 'false' ? null : await startDevChannels();
const appEnv = { ...(devChannels?.env ?? {}), ...process.env };

const stopAll = supervise(apps, (app) => ({
  file: process.execPath,
  args: [join(root, 'dist/apps', app, 'src/main.js')],
  env: { ...appEnv, ...APP_ENV[app] },
}));
let stopping = false;
/** @param {NodeJS.Signals} signal */
function stop(signal) {
  stopping = true;
  stopAll(signal).then(() => process.exit(0));
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
