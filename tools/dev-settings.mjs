// `npm start` on a development machine: writes .local/dev-settings.env once (this machine's own
// INTERNAL_AUTH_SECRET, random, or the one in the environment) for the apps it starts and for the
// admin CLI, so that the contract's `admin` commands work as written with no extra environment.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), '.local/dev-settings.env');

let saved;
try {
  saved = /^INTERNAL_AUTH_SECRET=(.+)$/m.exec(readFileSync(file, 'utf8'))?.[1];
} catch {
  // first start on this machine
}
const secret = process.env.INTERNAL_AUTH_SECRET || saved || randomBytes(36).toString('base64url');
if (secret !== saved) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `# Written by npm start for this machine only; the admin CLI reads it (never in production).\nINTERNAL_AUTH_SECRET=${secret}\n`,
    {
      mode: 0o600,
    },
  );
}
