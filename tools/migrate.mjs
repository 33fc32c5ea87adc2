// `npm run migrate`: applies every app's pending migrations (each app owns one schema), in turn.
// The same entry points run as the Kubernetes migration Job.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
for (const app of readdirSync(join(root, 'apps')).sort()) {
  const entry = join(root, 'dist/apps', app, 'src/migrate.js');
  if (!existsSync(entry)) continue;
  const result = spawnSync(process.execPath, [entry], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
