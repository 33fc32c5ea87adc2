// `npm start` on a development machine (after the build): writes .local/dev-settings.env, this
// machine's own keys, for the apps it starts and for the admin CLI, so that the contract's `admin`
// commands work as written with no extra environment. Each app that calls others gets its own
// Ed25519 key (`<APP>_INTERNAL_KEY`, ADR 015), every app the list of their public keys
// (INTERNAL_PUBLIC_KEYS), and LOG_PATH_SECRET. A value already in the file or in the environment is
// kept; what is missing is generated.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, '.local/dev-settings.env');
const { INTERNAL_CALLERS, PUBLIC_KEYS_SETTING, generateInternalKey, internalKeySetting, internalPublicKey } =
  /** @type {typeof import('../libs/platform/src/index.js')} */ (
    createRequire(import.meta.url)(join(root, 'dist/libs/platform/src/index.js'))
  );

let text = '';
try {
  text = readFileSync(file, 'utf8');
} catch {
  // first start on this machine
}
const saved = Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1], m[2].trim()]));
/**
 * @param {string} name
 * @param {() => string} make
 * @returns {string}
 */
const value = (name, make) => process.env[name] || saved[name] || make();

/** @type {Record<string, string>} */
const settings = { LOG_PATH_SECRET: value('LOG_PATH_SECRET', () => randomBytes(36).toString('base64url')) };
for (const caller of INTERNAL_CALLERS)
  settings[internalKeySetting(caller)] = value(internalKeySetting(caller), () => generateInternalKey().seed);
// Derived from the keys above (commas: the file is sourced by a shell).
settings[PUBLIC_KEYS_SETTING] = INTERNAL_CALLERS.map(
  (caller) => `${caller}:${internalPublicKey(settings[internalKeySetting(caller)])}`,
).join(',');

const written = [
  '# Written by npm start for this machine only; the admin CLI reads it (never in production).',
  ...Object.entries(settings).map(([name, v]) => `${name}=${v}`),
  '',
].join('\n');
if (written !== text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, written, { mode: 0o600 });
}
