import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');

describe('README', () => {
  it("lists every environment variable the apps read, with the default they apply", () => {
    const result = spawnSync(process.execPath, [join(root, 'tools/config-table.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('has exactly the two set-up commands of a fresh machine in its quick start, and they exist', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const quickStart = readme.split('## Quick start')[1]?.split('\n## ')[0] ?? '';
    const commands = [...quickStart.matchAll(/^```sh\n([\s\S]*?)```/gm)].flatMap((m) => m[1]!.trim().split('\n'));
    expect(commands).toEqual(['npm start', 'npm test']);
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['start', 'test', 'admin', 'migrate', 'bench:gateway']));
  });
});
