// The row types generated from the migrations (`npm run db:types`, ADR 017) are what the committed
// migrations give: a migration that changes a table without `npm run db:types` fails here, and a
// repository that names a renamed column fails `tsc`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..');

describe('npm run db:types', () => {
  it('the committed schema.generated.ts files are what the migrations give', () => {
    const check = spawnSync(process.execPath, [join(root, 'tools/db-types.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  }, 120_000);
});
