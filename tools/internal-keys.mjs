// Prints a fresh set of internal keys as env lines (after `npm run build`): each calling app's own
// `<APP>_INTERNAL_KEY`, INTERNAL_PUBLIC_KEYS listing their public halves, and LOG_PATH_SECRET.
//   node tools/internal-keys.mjs >> docker/.env
// `--public SEED` prints the public key of one seed (for INTERNAL_PUBLIC_KEYS, e.g. during a rotation).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { INTERNAL_CALLERS, PUBLIC_KEYS_SETTING, generateInternalKey, internalKeySetting, internalPublicKey } =
  /** @type {typeof import('../libs/platform/src/index.js')} */ (
    createRequire(import.meta.url)(join(root, 'dist/libs/platform/src/index.js'))
  );

if (process.argv[2] === '--public') {
  process.stdout.write(`${internalPublicKey(process.argv[3] ?? '')}\n`);
} else {
  const listed = [];
  for (const caller of INTERNAL_CALLERS) {
    const { seed, publicKey } = generateInternalKey();
    process.stdout.write(`${internalKeySetting(caller)}=${seed}\n`);
    listed.push(`${caller}:${publicKey}`);
  }
  process.stdout.write(`${PUBLIC_KEYS_SETTING}=${listed.join(',')}\nLOG_PATH_SECRET=${randomBytes(36).toString('base64url')}\n`);
}
