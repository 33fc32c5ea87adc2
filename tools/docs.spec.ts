import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { headingAnchors, relativeLinks } from './markdown';

const root = resolve(__dirname, '..');

describe('docs', () => {
  const documents = [
    'README.md',
    'bench/README.md',
    'docker/README.md',
    'k8s/README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  it('are all in the repository: nothing points at ../shared, and every relative link resolves, #anchor included', () => {
    expect(documents).toEqual(
      expect.arrayContaining(['docs/architecture.md', 'docs/api-guide.md', 'docs/webhooks.md', 'docs/operations.md']),
    );
    let checked = 0;
    for (const doc of documents) {
      const text = readFileSync(join(root, doc), 'utf8');
      expect({ doc, shared: text.match(/\.\.\/shared/g) ?? [] }).toEqual({ doc, shared: [] });
      for (const { target, anchor } of relativeLinks(text)) {
        const file = target === '' ? join(root, doc) : join(root, dirname(doc), target);
        expect({ doc, target, exists: existsSync(file) }).toEqual({ doc, target, exists: true });
        if (anchor !== undefined && file.endsWith('.md')) {
          expect({ doc, target, anchor, found: headingAnchors(readFileSync(file, 'utf8')).has(anchor) }).toEqual({
            doc,
            target,
            anchor,
            found: true,
          });
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('are all linked from the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const linked = new Set(relativeLinks(readme).map((link) => link.target));
    expect(documents.filter((doc) => doc.startsWith('docs/') && !linked.has(doc))).toEqual([]);
  });

  it('draw diagrams that parse: every Mermaid block passes @mermaid-js/parser and names only declared nodes', () => {
    const result = spawnSync(process.execPath, [join(root, 'tools/check-mermaid.mjs'), ...documents], { cwd: root, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(Number(/(\d+) diagrams parsed/.exec(result.stdout)?.[1])).toBeGreaterThanOrEqual(2);
  });
});

describe('docs/configuration.md', () => {
  it('lists every environment variable the apps read, with the default they apply', () => {
    const result = spawnSync(process.execPath, [join(root, 'tools/config-table.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('gives each app its own default and meaning of a variable (PORT differs per app)', () => {
    const doc = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    const table = doc.split('<!-- config-table:start -->')[1]!.split('<!-- config-table:end -->')[0]!;
    const rows = [...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \| (.*) \| (.*) \|$/gm)].map(([, name, apps, defaultCell, meaning]) => ({
      name: name!,
      apps: apps!.split(', '),
      defaultCell: defaultCell!,
      meaning: meaning!,
    }));
    const ports = new Map<string, string>();
    let compared = 0;
    for (const app of readdirSync(join(root, 'apps'))) {
      const dir = join(root, 'apps', app, 'src');
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.config.ts'))) {
        for (const [exported, spec] of Object.entries(jest.requireActual<Record<string, unknown>>(join(dir, file)))) {
          if (!exported.endsWith('ConfigSpec')) continue;
          for (const [name, validator] of Object.entries(spec as Record<string, { default?: unknown; desc?: string }>)) {
            const matching = rows.filter((row) => row.name === name && row.apps.includes(app));
            expect({ app, name, rows: matching.length }).toEqual({ app, name, rows: 1 });
            const [row] = matching;
            expect(row!.meaning).toBe(validator.desc ?? '');
            if (validator.default !== undefined && validator.default !== '')
              expect(row!.defaultCell).toBe(`\`${String(validator.default)}\``);
            if (name === 'PORT') ports.set(app, row!.defaultCell);
            compared += 1;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
    expect(ports.get('gateway')).toBe('`3000`');
    expect(ports.get('contacts-api')).toBe('`3001`');
    expect(new Set(ports.values()).size).toBe(ports.size);
  });
});

describe('README', () => {
  it('has exactly the two set-up commands of a fresh machine in its quick start, and they exist', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const quickStart = readme.split('## Quick start')[1]?.split('\n## ')[0] ?? '';
    const commands = [...quickStart.matchAll(/^```sh\n([\s\S]*?)```/gm)].flatMap((m) => m[1]!.trim().split('\n'));
    expect(commands).toEqual(['npm start', 'npm test']);
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['start', 'test', 'admin', 'migrate', 'bench:gateway']));
  });
});
