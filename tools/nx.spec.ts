// The Nx workspace: every app and library is a project with the standard targets, and Nx itself
// (its project graph, as `nx graph` writes it) sees them with those targets and their dependencies.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
const TIERS = ['build', 'lint', 'test', 'test-integration', 'test-e2e', 'test-outage'];

interface ProjectJson {
  name: string;
  tags: string[];
  targets: Record<string, object>;
}
interface Graph {
  graph: {
    nodes: Record<
      string,
      {
        data: {
          root: string;
          targets: Record<string, { options?: { command?: string }; dependsOn?: unknown[]; outputs?: string[]; cache?: boolean }>;
        };
      }
    >;
    dependencies: Record<string, Array<{ target: string }>>;
  };
}

const projects = ['apps', 'libs'].flatMap((top) => readdirSync(join(root, top)).map((name) => `${top}/${name}`));
const projectJson = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'project.json'), 'utf8')) as ProjectJson;

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
    // Everything else comes from nx.json's targetDefaults: a new app is a copy of this file.
    for (const target of Object.values(project.targets)) expect(target).toEqual({});
  });

  it('Nx sees every project with its targets, builds into dist/<root> (cached) after its dependencies', () => {
    expect(Object.keys(graph.nodes).sort()).toEqual([...projects.map((dir) => dir.split('/')[1]!), 'tools'].sort());
    for (const dir of projects) {
      const { data } = graph.nodes[dir.split('/')[1]!]!;
      expect(data.root).toBe(dir);
      expect(data.targets['build']).toMatchObject({
        options: { command: `node tools/build.mjs ${dir}` },
        outputs: ['{workspaceRoot}/dist/{projectRoot}'],
        cache: true,
        dependsOn: ['^build'],
      });
      expect(data.targets['test']?.options?.command).toContain(`'**/*.spec.ts' -- ${dir}/`);
      expect(data.targets['test-e2e']?.dependsOn).toEqual([{ target: 'build', projects: '*' }]);
    }
    // Dependencies come from the imports: the gateway uses platform; libraries never use apps.
    expect(graph.dependencies['gateway']!.map((d) => d.target)).toContain('platform');
    for (const dir of projects.filter((d) => d.startsWith('libs/'))) {
      expect(graph.dependencies[dir.split('/')[1]!]!.filter((d) => projects.includes(`apps/${d.target}`))).toEqual([]);
    }
  });
});
