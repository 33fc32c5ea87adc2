import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `npm start`'s supervisor (tools/supervisor.mjs), run as it runs: in a Node process of its own. */
describe('supervise', () => {
  const dir = mkdtempSync(join(tmpdir(), 'supervisor-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('restarts a process that exits, with a growing delay, and leaves the others running; stop ends them all', async () => {
    // `crashes` exits at once every time; `steady` runs until stopped and counts its starts.
    writeFileSync(join(dir, 'crashes.mjs'), 'console.log("up"); process.exit(3);\n');
    writeFileSync(join(dir, 'steady.mjs'), 'console.log("up"); setInterval(() => {}, 1000);\n');
    const runner = join(dir, 'runner.mjs');
    writeFileSync(
      runner,
      `import { supervise } from ${JSON.stringify(join(__dirname, 'supervisor.mjs'))};
let restarts = 0;
const write = (text) => {
  process.stdout.write(text);
  if (text.includes('restarting in') && ++restarts === 4) stop().then(() => console.log('stopped'));
};
const stop = supervise(['crashes', 'steady'], (name) => ({ file: process.execPath, args: [${JSON.stringify(dir)} + '/' + name + '.mjs'], env: {} }), { write, firstMs: 100, maxMs: 400 });
`,
    );
    const child = spawn(process.execPath, [runner], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    const lines = output.split('\n');
    const restarts = lines
      .filter((l) => l.startsWith('crashes') && l.includes('restarting in'))
      .map((l) => l.replace(/^.*restarting in /, ''));
    // 100 ms, 200 ms, 400 ms, then capped at 400 ms.
    expect(restarts.slice(0, 4)).toEqual(['0.1 s', '0.2 s', '0.4 s', '0.4 s']);
    expect(lines.filter((l) => l.startsWith('steady') && l.endsWith('| up'))).toHaveLength(1);
    expect(lines).toContain('steady             | exited (SIGTERM)');
    expect(lines.at(-2)).toBe('stopped');
  });
});
