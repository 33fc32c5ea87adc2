// The Nx workspace: every app and library is a project with the standard targets, the chat widget and
// the console's front end are projects of their own, and Nx itself (its project graph, as `nx graph`
// writes it) sees each one's build as an Nx executor with declared inputs and outputs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
const TIERS = ['build', 'lint', 'test', 'test-integration', 'test-e2e', 'test-outage'];
/** The browser front ends: projects in place inside their app, built by their own bundler and copied into its dist. */
const FRONT_ENDS = [
  { name: 'chat-widget', root: 'apps/chat/src/widget', app: 'chat', executor: '@nx/esbuild:esbuild' },
  { name: 'console-web', root: 'apps/console/web', app: 'console', executor: '@nx/vite:build' },
];

interface ProjectJson {
  name: string;
  tags: string[];
  targets: Record<string, { options?: object }>;
}
interface Target {
  executor?: string;
  options?: { command?: string; outputPath?: string };
  dependsOn?: unknown[];
  inputs?: unknown[];
  outputs?: string[];
  cache?: boolean;
}
interface Graph {
  graph: {
    nodes: Record<string, { data: { root: string; targets: Record<string, Target> } }>;
    dependencies: Record<string, Array<{ target: string }>>;
  };
}

const projects = ['apps', 'libs'].flatMap((top) => readdirSync(join(root, top)).map((name) => `${top}/${name}`));
const projectJson = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'project.json'), 'utf8')) as ProjectJson;
/** Where a build writes, from the workspace root. */
const outputsOf = (target: Target, projectRoot: string) =>
  (target.outputs ?? []).map((output) =>
    output
      .replace('{options.outputPath}', target.options?.outputPath ?? '')
      .replace('{workspaceRoot}/', '')
      .replace('{projectRoot}', projectRoot),
  );

describe('the Nx workspace', () => {
  let graph: Graph['graph'];
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'nx-graph-'));
    try {
      const file = join(dir, 'graph.json');
      const run = spawnSync(process.execPath, [join(root, 'node_modules/nx/bin/nx.js'), 'graph', `--file=${file}`], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
      });
      if (run.status !== 0) throw new Error(`nx graph failed:\n${run.stdout}\n${run.stderr}`);
      graph = (JSON.parse(readFileSync(file, 'utf8')) as Graph).graph;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it.each(projects)('%s: a project.json naming its directory, with build, lint and a test target per tier (serve for a service)', (dir) => {
    const project = projectJson(dir);
    expect(project.name).toBe(dir.split('/')[1]);
    const expected = project.tags.includes('type:service') ? [...TIERS, 'serve'] : TIERS;
    expect(Object.keys(project.targets).sort()).toEqual([...expected].sort());
    // Everything else comes from nx.json's targetDefaults (a build may add options): a new app is a copy of this file.
    for (const [name, target] of Object.entries(project.targets)) if (name !== 'build') expect(target).toEqual({});
  });

  it('Nx sees every project with its targets; apps and libraries build with SWC into dist/<root>, after their dependencies', () => {
    const names = [...projects.map((dir) => dir.split('/')[1]!), ...FRONT_ENDS.map((f) => f.name), 'tools'];
    expect(Object.keys(graph.nodes).sort()).toEqual(names.sort());
    for (const dir of projects) {
      const { data } = graph.nodes[dir.split('/')[1]!]!;
      expect(data.root).toBe(dir);
      expect(data.targets['build']?.options?.outputPath).toBe(`dist/${dir}`);
      // The published verifier keeps its own package.json (ESM): tsc, which copies none, builds its CommonJS for the apps.
      expect(data.targets['build']?.executor).toBe(dir === 'libs/webhook-signing' ? '@nx/js:tsc' : '@nx/js:swc');
      expect(data.targets['test']?.options?.command).toContain(`'**/*.spec.ts' -- ${dir}/`);
      expect(data.targets['test-e2e']?.dependsOn).toEqual([{ target: 'build', projects: '*' }]);
    }
    expect(graph.nodes['gateway']!.data.targets['build']?.dependsOn).toEqual(['^build']);
    // Dependencies come from the imports: the gateway uses platform; libraries never use apps.
    expect(graph.dependencies['gateway']!.map((d) => d.target)).toContain('platform');
    for (const dir of projects.filter((d) => d.startsWith('libs/'))) {
      expect(graph.dependencies[dir.split('/')[1]!]!.filter((d) => projects.includes(`apps/${d.target}`))).toEqual([]);
    }
  });

  it.each(FRONT_ENDS)(
    '$name: a project in place ($root), built by $executor before $app, which serves it',
    ({ name, root: dir, app, executor }) => {
      const { data } = graph.nodes[name]!;
      expect(data.root).toBe(dir);
      expect(data.targets['build']?.executor).toBe(executor);
      expect(graph.dependencies[app]!.map((d) => d.target)).toContain(name);
      expect(graph.nodes[app]!.data.targets['build']?.dependsOn).toEqual(['^build']);
    },
  );

  it('every build is an Nx executor (no script behind nx:run-commands), cached, with declared inputs and its own outputs under dist/', () => {
    const outputs: Array<{ project: string; path: string }> = [];
    for (const [project, { data }] of Object.entries(graph.nodes)) {
      const build = data.targets['build'];
      if (project === 'tools') {
        expect(build).toBeUndefined();
        continue;
      }
      expect([project, build?.executor]).toEqual([project, expect.stringMatching(/^@nx\/(js|esbuild|vite):/)]);
      expect([project, build?.cache]).toEqual([project, true]);
      expect([project, build?.inputs?.length]).toEqual([project, expect.any(Number)]);
      expect(build!.inputs).toContain('production');
      for (const path of outputsOf(build!, data.root)) outputs.push({ project, path });
    }
    for (const { project, path } of outputs) {
      expect([project, path]).toEqual([project, expect.stringMatching(/^dist\/[^{}]+$/)]);
      // No build writes into another's output (a clean or a cache restore of one would delete the other's files).
      const overlapping = outputs.filter((o) => o.project !== project && (o.path.startsWith(`${path}/`) || path.startsWith(`${o.path}/`)));
      expect([project, overlapping]).toEqual([project, []]);
    }
  });
});
