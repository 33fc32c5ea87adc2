import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from './signing';

/**
 * The publishable package: `tsup` (tsup.config.ts) builds ESM, CommonJS and declarations, and both
 * entry points, loaded by Node as a consumer would, verify a signed delivery.
 */
describe('@svc/webhook-signing as a package', () => {
  const root = join(__dirname, '..');
  let out: string;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'webhook-signing-'));
    execFileSync(join(root, '../../node_modules/.bin/tsup'), ['--out-dir', out, '--silent'], { cwd: root, stdio: 'pipe' });
  }, 120_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('has a package.json whose exports point at ESM, CommonJS and types, and a README', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, Record<string, Record<string, string>>>;
    };
    expect(pkg.name).toBe('@svc/webhook-signing');
    expect(pkg.exports['.']).toEqual({
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    });
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts']) expect(existsSync(join(out, file))).toBe(true);
    expect(readFileSync(join(out, 'index.d.ts'), 'utf8')).toMatch(/declare function verify<T = SvcWebhookEvent>/);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(
      "import { verify, WebhookVerificationError } from '@svc/webhook-signing'",
    );
  });

  it.each([
    ['CommonJS', ['-e'], (file: string) => `const { verify } = require(${JSON.stringify(file)});`, 'index.cjs'],
    ['ESM', ['--input-type=module', '-e'], (file: string) => `import { verify } from ${JSON.stringify(file)};`, 'index.js'],
  ])('the %s build verifies a delivery and names the reason of a refusal', (_format, flags, load, file) => {
    const body = '{"id":7,"event":"message.sent","at":"2026-11-21T10:04:05.123456+00:00","data":{}}';
    const headers = { 'x-svc-timestamp': '1795255445', 'x-svc-signature': sign('whsec_a', 1_795_255_445, body) };
    const script = `${load(join(out, file))}
const args = ${JSON.stringify({ body, headers })};
const event = verify(args.body, args.headers, 'whsec_a', { now: 1795255445 });
let reason;
try { verify(args.body, args.headers, 'whsec_b', { now: 1795255445 }); } catch (err) { reason = err.reason; }
console.log(JSON.stringify({ id: event.id, reason }));`;
    expect(JSON.parse(execFileSync(process.execPath, [...flags, script], { encoding: 'utf8' }))).toEqual({
      id: 7,
      reason: 'bad_signature',
    });
  });
});
