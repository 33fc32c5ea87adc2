// The container images (docker/Dockerfile) and the laptop stack (docker/compose.yml), checked
// without a Docker engine: the build stage's commands are replayed in a scratch directory (the
// context filtered by .dockerignore; node_modules from the checkout instead of `npm ci`), and every
// path an image copies or runs must exist in the result, for every app.
import type { ConfigSpec } from '@svc/platform';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { hasPublishedDefault } from '@svc/platform';
import { internalKeysEnv } from '@svc/testing';
import { configSpecOf, defaultInternalPort, defaultPort, mustBeSet, refusal, root, servingApps } from './deploy-checks';

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** Logical instructions (continuations joined, comments dropped), grouped into stages. */
function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    lines.push(`${pending}${line}`.trim());
    pending = '';
  }
  const stages: Stage[] = [];
  for (const line of lines.filter((l) => l !== '')) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const [from = '', , name] = args.split(/\s+/);
      stages.push({ name: name ?? String(stages.length), from, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

const dockerfile = parseDockerfile(readFileSync(join(root, 'docker/Dockerfile'), 'utf8'));
const stage = (name: string): Stage => {
  const found = dockerfile.find((s) => s.name === name);
  if (!found) throw new Error(`docker/Dockerfile has no stage ${name}`);
  return found;
};
/** A stage and the stages it is built FROM, base first. */
const lineage = (name: string): Stage[] => {
  const own = stage(name);
  return dockerfile.some((s) => s.name === own.from) ? [...lineage(own.from), own] : [own];
};
const all = (stages: Stage[], keyword: string) => stages.flatMap((s) => s.instructions.filter((i) => i.keyword === keyword));
const substitute = (text: string, values: Record<string, string>) =>
  text.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => values[name] ?? whole);

interface Copy {
  from?: string;
  sources: string[];
  dest: string;
}
function parseCopy(args: string): Copy {
  const words = args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { ...(from ? { from } : {}), sources: paths.slice(0, -1), dest: paths.at(-1)! };
}
const execForm = (args: string): string[] => JSON.parse(args.replace(/^CMD\s+/, '')) as string[];

// ---------------------------------------------------------------------------------------------
// .dockerignore (Docker's rules: last matching pattern wins, `!` re-includes, a match on a parent
// directory counts, `*` stays within one path segment, `**` spans any number)

const GLOB: Record<string, string> = { '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' };
const ignoreRules = readFileSync(join(root, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((pattern) => {
    const negate = pattern.startsWith('!');
    const glob = posix.normalize(pattern.replace(/^!/, '').replace(/^\//, ''));
    const source = glob
      .split(/(\*\*\/|\*\*|\*|\?)/)
      .map((part) => GLOB[part] ?? part.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
      .join('');
    return { negate, regex: new RegExp(`^${source}$`) };
  });

function ignored(path: string): boolean {
  const parts = path.split('/');
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let excluded = false;
  for (const { negate, regex } of ignoreRules) if (prefixes.some((p) => regex.test(p))) excluded = !negate;
  return excluded;
}

/** COPY from the build context into `target`, leaving out what .dockerignore excludes. */
function copyFromContext(source: string, target: string): void {
  const from = join(root, source);
  if (!statSync(from).isDirectory()) {
    if (ignored(posix.normalize(source))) throw new Error(`${source} is excluded by .dockerignore`);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(from, target);
    return;
  }
  cpSync(from, target, { recursive: true, filter: (path) => !ignored(relative(root, path)) });
}

// ---------------------------------------------------------------------------------------------
// Replaying the build, and the file systems of the images

const scratch = mkdtempSync(join(tmpdir(), 'docker-spec-'));
const BUILD_STAGE =
  dockerfile.find((s) => s.instructions.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args)))?.name ?? 'build';
const inBuild = (imagePath: string) => join(scratch, imagePath);

/** Runs the build stage's lineage in `scratch`, as if it were `/`. Throws with the output on failure. */
function replayBuild(): void {
  let workdir = '/';
  for (const { instructions } of lineage(BUILD_STAGE)) {
    for (const { keyword, args } of instructions) {
      if (keyword === 'WORKDIR') workdir = posix.resolve(workdir, args);
      if (keyword === 'COPY') {
        const copy = parseCopy(args);
        if (copy.from) throw new Error(`the build stages should copy from the context only: COPY ${args}`);
        const dest = posix.resolve(workdir, copy.dest);
        for (const source of copy.sources) {
          const into = copy.dest.endsWith('/') || copy.sources.length > 1 ? posix.join(dest, posix.basename(source)) : dest;
          copyFromContext(source, inBuild(into));
        }
      }
      if (keyword === 'RUN') {
        const cwd = inBuild(workdir);
        mkdirSync(cwd, { recursive: true });
        // Dependencies: the checkout's, already installed from the same lock file.
        if (/^npm ci\b/.test(args)) {
          symlinkSync(join(root, 'node_modules'), join(cwd, 'node_modules'), 'dir');
          continue;
        }
        const run = spawnSync('sh', ['-c', args], { cwd, encoding: 'utf8' });
        if (run.status !== 0) throw new Error(`RUN ${args} failed:\n${run.stdout}\n${run.stderr}`);
      }
    }
  }
}

/** Where an image's files come from: its COPY --from lines, as (path in the image, local path). */
interface Image {
  workdir: string;
  layers: Array<{ imagePath: string; local: string }>;
  instructions: Instruction[];
}

function image(target: string, args: Record<string, string>): Image {
  let workdir = '/';
  const layers: Image['layers'] = [];
  const stages = lineage(target);
  for (const { instructions } of stages) {
    for (const { keyword, args: raw } of instructions) {
      const text = substitute(raw, args);
      if (keyword === 'WORKDIR') workdir = posix.resolve(workdir, text);
      if (keyword !== 'COPY') continue;
      const copy = parseCopy(text);
      if (!copy.from) throw new Error(`image stages should copy from other stages only: COPY ${raw}`);
      for (const source of copy.sources) {
        // The production dependencies cannot be installed offline: the checkout's stand in, and
        // the require walk below allows only packages of package.json "dependencies".
        const local =
          copy.from === BUILD_STAGE
            ? inBuild(source)
            : source.endsWith('/node_modules')
              ? join(root, 'node_modules')
              : `(stage ${copy.from})${source}`;
        layers.push({ imagePath: posix.resolve(workdir, copy.dest), local });
      }
    }
  }
  return { workdir, layers, instructions: stages.flatMap((s) => s.instructions) };
}

/** The local file behind a path of the image, if the image has it. */
function locate(img: Image, imagePath: string): string | undefined {
  const path = posix.resolve(img.workdir, imagePath);
  const layer = img.layers
    .filter((l) => path === l.imagePath || path.startsWith(`${l.imagePath}/`))
    .sort((a, b) => b.imagePath.length - a.imagePath.length)[0];
  const local = layer && join(layer.local, posix.relative(layer.imagePath, path));
  return local && existsSync(local) ? local : undefined;
}

const dependencies = new Set(
  Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies),
);
const builtins = new Set(builtinModules);

/**
 * Follows every require() from `entry` through the compiled code: each local file must be in the
 * image, each package a production dependency. Returns what is missing.
 */
function missingRequires(img: Image, entry: string): string[] {
  const inImage = img.layers.filter((l) => l.local.startsWith(scratch)).map((l) => l.local);
  const missing = new Set<string>();
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/\brequire\("([^"]+)"\)/g)) {
      if (specifier!.startsWith('.')) {
        const base = join(dirname(file), specifier!);
        const found = [base, `${base}.js`, `${base}.json`, join(base, 'index.js')].find((p) => existsSync(p) && statSync(p).isFile());
        if (!found || !inImage.some((dir) => found.startsWith(`${dir}/`))) missing.add(`${relative(scratch, file)} → ${specifier}`);
        else if (found.endsWith('.js')) queue.push(found);
        continue;
      }
      const name = specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!;
      if (!builtins.has(specifier!.replace(/^node:/, '')) && !builtins.has(name) && !dependencies.has(name))
        missing.add(`${relative(scratch, file)} → package ${name}`);
    }
  }
  return [...missing];
}

/** The script a shell-form CMD (`sh -c "exec node [options] <script>"`) runs; options (`--x`, `${VAR:+--x=…}`) are skipped. */
const nodeScript = (cmd: string[]): string | undefined => /\bnode\s+(?:(?:\$\{[^}]*\}|--?\S+)\s+)*"?([^"\s;]+)"?/.exec(cmd.join(' '))?.[1];

// ---------------------------------------------------------------------------------------------
// Tests

const apps = servingApps();
const specs = new Map<string, ConfigSpec>();

beforeAll(async () => {
  for (const app of apps) specs.set(app, await configSpecOf(app));
  replayBuild();
}, 180_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('docker/Dockerfile', () => {
  it('builds the workspace once, in one stage that the app and migration images copy from', () => {
    expect(
      dockerfile.filter((s) => s.instructions.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args))).map((s) => s.name),
    ).toEqual([BUILD_STAGE]);
    expect(dockerfile.at(-1)?.name).toBe('app');
    for (const target of ['app', 'migrate']) {
      expect(lineage(target).map((s) => s.name)).toContain('runtime');
      expect(lineage(target).map((s) => s.name)).not.toContain(BUILD_STAGE);
    }
  });

  it('keeps node_modules, dist and .git out of the build context, and lets in what the build copies', () => {
    for (const path of [
      'node_modules',
      'dist/apps/gateway/src/main.js',
      '.git/HEAD',
      'apps/gateway/src/gateway.e2e-spec.ts',
      'apps/gateway/node_modules/x',
    ])
      expect([path, ignored(path)]).toEqual([path, true]);
    for (const { args } of all(lineage(BUILD_STAGE), 'COPY'))
      for (const source of parseCopy(args).sources) expect([source, ignored(source)]).toEqual([source, false]);
  });

  it.each(apps)(
    "%s: the image runs the app's compiled main.js, which needs only its own code, the libraries and production dependencies",
    (app) => {
      const img = image('app', {
        APP: app,
        PORT: String(defaultPort(specs.get(app)!)),
        INTERNAL_PORT: String(defaultInternalPort(specs.get(app)!)),
      });
      const cmd = all(lineage('app'), 'CMD').at(-1);
      const script = substitute(nodeScript(execForm(cmd!.args)) ?? '', { APP: app });
      expect(script).toBe(`dist/apps/${app}/src/main.js`);
      const main = locate(img, script);
      expect(main ? script : `${script} is not in the image`).toBe(script);
      expect(missingRequires(img, main!)).toEqual([]);
      if (existsSync(join(root, 'apps', app, 'src', 'migrate.ts'))) expect(locate(img, `dist/apps/${app}/src/migrate.js`)).toBeDefined();
    },
  );

  it('leaves test-only code out of the build the images copy: libs/testing, src/test-support, spec files', () => {
    const dist = inBuild('/src/dist');
    expect(existsSync(join(dist, 'apps/gateway/src/main.js'))).toBe(true);
    expect(existsSync(join(dist, 'libs/testing'))).toBe(false);
    const files = (readdirSync(dist, { recursive: true }) as string[]).map((file) => file.split(sep).join('/'));
    expect(files.filter((file) => /(^|\/)test-support(\/|$)|\.(spec|integration-spec|e2e-spec|outage-spec)\.js$/.test(file))).toEqual([]);
    // Nothing left that could serve the dispatcher's test route or require the harness.
    const compiled = files.filter((file) => file.endsWith('.js')).map((file) => ({ file, code: readFileSync(join(dist, file), 'utf8') }));
    const testRoute = ({ file, code }: { file: string; code: string }) =>
      file.startsWith('apps/webhook-dispatcher/') && /Controller\)?\(['"]internal\/events['"]\)/.test(code);
    expect(
      compiled.filter((entry) => testRoute(entry) || /require\("[^"]*libs\/testing/.test(entry.code)).map((entry) => entry.file),
    ).toEqual([]);
  });

  it('puts the operator command line in every image', () => {
    const img = image('app', { APP: apps[0]!, PORT: '1' });
    const admin = locate(img, 'dist/apps/admin/src/main.js');
    expect(admin).toBeDefined();
    expect(missingRequires(img, admin!)).toEqual([]);
  });

  it('migrate: the image runs every migrate.js of the serving apps that own a schema (mcp-server owns none)', () => {
    const img = image('migrate', {});
    const cmd = execForm(all(lineage('migrate'), 'CMD').at(-1)!.args).join(' ');
    const glob = /(\S*\*\S*\/migrate\.js)/.exec(cmd)?.[1];
    expect(glob).toBe('dist/apps/*/src/migrate.js');
    for (const app of apps.filter((name) => existsSync(join(root, 'apps', name, 'src', 'migrate.ts')))) {
      const entry = locate(img, glob!.replace('*', app));
      expect(entry ? app : `${app}: no migrate.js in the migrate image`).toBe(app);
      expect(missingRequires(img, entry!)).toEqual([]);
    }
  });

  it('installs only production dependencies into the images', () => {
    const runtime = lineage('runtime');
    const modules = all(runtime, 'COPY')
      .map((i) => parseCopy(i.args))
      .filter((c) => c.sources.some((s) => s.endsWith('node_modules')));
    expect(modules).toHaveLength(1);
    expect(all(lineage(modules[0]!.from!), 'RUN').some((i) => /npm (ci|prune)\b.*--omit=dev/.test(i.args))).toBe(true);
  });

  it('runs as a non-root user in production mode, with tini as PID 1', () => {
    const runtime = lineage('runtime');
    const user = all(runtime, 'USER').at(-1)?.args.split(':')[0];
    expect(user).toBeDefined();
    expect(['0', 'root']).not.toContain(user);
    expect(all(runtime, 'ENV').map((i) => i.args)).toContain('NODE_ENV=production');
    // The apps listen on 127.0.0.1 unless told otherwise: in a container, every interface.
    expect(all(runtime, 'ENV').map((i) => i.args)).toContain('HOST=0.0.0.0');
    expect(all(runtime, 'RUN').some((i) => /apt-get install .*\btini\b/.test(i.args))).toBe(true);
    expect(execForm(all(runtime, 'ENTRYPOINT').at(-1)!.args)).toEqual(['/usr/bin/tini', '--']);
    // `exec` hands the shell's PID to node, so tini's SIGTERM reaches it.
    expect(execForm(all(lineage('app'), 'CMD').at(-1)!.args).join(' ')).toMatch(/\bexec node\b/);
  });

  it('labels each app image with the OCI annotations (title, version, revision, created, source)', () => {
    const labels = all(lineage('app'), 'LABEL')
      .map((i) => i.args)
      .join(' ');
    for (const key of ['title', 'version', 'revision', 'created', 'source'])
      expect(labels).toMatch(new RegExp(`org\\.opencontainers\\.image\\.${key}="[^"]+"`));
    const args = all(lineage('app'), 'ARG').map((i) => i.args.split('=')[0]);
    expect(args).toEqual(expect.arrayContaining(['VERSION', 'REVISION', 'CREATED']));
  });

  it('sizes the heap from the memory limit the pod passes (MEMORY_LIMIT_MIB), three quarters of it, and leaves Node its default without it', () => {
    const script = execForm(all(lineage('app'), 'CMD').at(-1)!.args);
    expect(script.slice(0, 2)).toEqual(['sh', '-c']);
    const run = (env: Record<string, string>) =>
      spawnSync('sh', ['-c', script[2]!.replace(/^exec node /, 'echo node ')], {
        env: { PATH: process.env['PATH'] ?? '', APP: 'gateway', ...env },
        encoding: 'utf8',
      }).stdout.trim();
    expect(run({ MEMORY_LIMIT_MIB: '512' })).toBe('node --max-old-space-size=384 dist/apps/gateway/src/main.js');
    expect(run({})).toBe('node dist/apps/gateway/src/main.js');
  });

  it("sets the app's PORT and checks its health with a Node one-liner that fails unless /healthz answers 2xx", async () => {
    const app = all(lineage('app'), 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(app).toMatch(/(^|\s)PORT=\$\{PORT\}/);
    expect(app).toMatch(/(^|\s)INTERNAL_PORT=\$\{INTERNAL_PORT\}/);
    // Both ports documented; the build refuses to make an image without either.
    expect(all(lineage('app'), 'EXPOSE').map((i) => i.args)).toEqual(['${PORT} ${INTERNAL_PORT}']);
    const check = all(lineage('app'), 'RUN').find((i) => i.args.includes('test -n'))?.args ?? '';
    for (const arg of ['PORT', 'INTERNAL_PORT']) expect(check).toContain(`test -n "\${${arg}}"`);
    const healthcheck = all(lineage('app'), 'HEALTHCHECK').at(-1)!.args;
    const command = execForm(healthcheck.slice(healthcheck.indexOf('CMD')));
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    let status = 200;
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(status).end();
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    const run = () =>
      new Promise<number>((done) => {
        const env = { ...process.env, PORT: String((server.address() as AddressInfo).port) };
        execFile(command[0]!, command.slice(1), { env }, (error) => done(error ? Number(error.code ?? 1) : 0));
      });
    try {
      expect(await run()).toBe(0);
      status = 503;
      expect(await run()).toBe(1);
      expect(paths).toEqual(['/healthz', '/healthz']);
    } finally {
      server.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// docker/compose.yml

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string; target?: string; args?: Record<string, string> };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
}
const compose = parse(readFileSync(join(root, 'docker/compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
/** What `node tools/internal-keys.mjs` prints: the apps' keys (the admin command line's is not the apps' business) and LOG_PATH_SECRET. */
const operatorKeys = Object.fromEntries(Object.entries(internalKeysEnv()).filter(([name]) => name !== 'ADMIN_INTERNAL_KEY'));
/** What the operator puts in docker/.env (the commands of compose.yml's header). */
const operatorShell = {
  ...operatorKeys,
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
};
const REFERENCE = /\$(?:(\$)|([_a-z]\w*)|\{([_a-z]\w*)(?:(:?[-?])([^}]*))?\}|)/gi;

/**
 * Compose's interpolation (compose-go's rules): `$$` is a `$`; `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?message}` (fails with the message when VAR is unset or empty); any other
 * `$` is an invalid template. Defaults and messages are interpolated too.
 */
function interpolate(value: string, shell: Record<string, string>): string {
  return value.replace(REFERENCE, (_whole, escaped?: string, plain?: string, braced?: string, op?: string, rest = '') => {
    if (escaped) return '$';
    const name = plain ?? braced;
    if (!name) throw new Error(`invalid interpolation in ${JSON.stringify(value)}`);
    const set = shell[name];
    if (op === ':?' || op === '?') {
      const message = interpolate(rest, shell);
      if (set === undefined || (op === ':?' && set === '')) throw new Error(`required variable ${name} is missing a value: ${message}`);
      return set;
    }
    if (op === ':-' || op === '-') return set === undefined || (op === ':-' && set === '') ? interpolate(rest, shell) : set;
    return set ?? '';
  });
}

/** Every `${…}` reference of a compose value: the variable and its operator (`:?`, `:-`, …, or '' for none). */
const references = (value: string) =>
  [...value.matchAll(REFERENCE)].filter((m) => !m[1]).map((m) => ({ name: m[2] ?? m[3] ?? '', op: m[4] ?? '' }));

/** Every string in the compose file (keys of environment maps included), for the interpolation checks. */
const strings = (node: unknown): string[] =>
  typeof node === 'string'
    ? [node]
    : Array.isArray(node)
      ? node.flatMap(strings)
      : node !== null && typeof node === 'object'
        ? Object.entries(node).flatMap(([key, value]) => [key, ...strings(value)])
        : [];
const composeText = readFileSync(join(root, 'docker/compose.yml'), 'utf8');
/** A setting production must get from the operator: a secret by its name, or one whose development default is published. */
const isSecret = (spec: ConfigSpec, name: string) =>
  /SECRET|TOKEN|PASSWORD|(^|_)KEY$/.test(name) || (spec[name] !== undefined && hasPublishedDefault(spec[name] as object));

describe('docker/compose.yml', () => {
  it('runs PostgreSQL, RabbitMQ and Redis with health checks', () => {
    for (const name of ['postgres', 'rabbitmq', 'redis'])
      expect([name, services[name]?.healthcheck?.test.length]).toEqual([name, expect.any(Number)]);
  });

  it('points every app that uses Redis (its config declares REDIS_URL) at the redis service, and starts it once Redis is healthy', () => {
    const users = apps.filter((app) => 'REDIS_URL' in specs.get(app)!);
    // The gateway (write limits, Idempotency-Key answers) and the chat (open visitor streams).
    expect(users).toEqual(['chat', 'gateway']);
    for (const app of apps) {
      const uses = users.includes(app);
      expect([app, services[app]?.environment?.['REDIS_URL']]).toEqual([app, uses ? 'redis://redis:6379' : undefined]);
      expect([app, services[app]?.depends_on?.['redis']?.condition]).toEqual([app, uses ? 'service_healthy' : undefined]);
    }
  });

  it('migrates every schema in a one-shot service built from the migrate target, once PostgreSQL is healthy', () => {
    const migrate = services['migrate'];
    expect(migrate?.build?.target).toBe('migrate');
    expect(migrate?.build?.dockerfile).toBe('docker/Dockerfile');
    expect(migrate?.depends_on?.['postgres']?.condition).toBe('service_healthy');
    expect(migrate?.environment?.['DATABASE_URL']).toMatch(/@postgres:5432\//);
  });

  it.each(apps)('%s: is built from the Dockerfile with its name and port, and starts after the migrations', (app) => {
    const service = services[app];
    expect(service?.build?.dockerfile).toBe('docker/Dockerfile');
    expect(join(root, 'docker', service?.build?.context ?? '')).toBe(root);
    expect(service?.build?.target).toBeUndefined();
    expect(service?.build?.args).toEqual({
      APP: app,
      PORT: String(defaultPort(specs.get(app)!)),
      INTERNAL_PORT: String(defaultInternalPort(specs.get(app)!)),
    });
    expect(service?.depends_on?.['migrate']?.condition).toBe('service_completed_successfully');
  });

  it.each(apps)('%s: gets every setting it needs in production, each one a value it accepts', (app) => {
    const spec = specs.get(app)!;
    const raw = Object.entries(services[app]?.environment ?? {}).map(([k, v]) => [k, String(v)] as const);
    const env = new Map(raw.map(([k, v]) => [k, interpolate(v, operatorShell)]));
    // Secrets come from the operator, never from this file: each one a required `${…:?…}`.
    for (const [name, value] of raw.filter(([name]) => isSecret(spec, name)))
      expect([name, references(value)]).toEqual([name, [{ name, op: ':?' }]]);
    expect(mustBeSet(spec).filter((name) => !env.has(name))).toEqual([]);
    const mounts = (services[app]?.volumes ?? []).map((v) => v.split(':')[1]!);
    const refused: string[] = [];
    for (const [name, value] of env) {
      if (value.startsWith('/')) {
        expect(mounts.some((m) => value === m || value.startsWith(`${m}/`)) ? value : `${name}=${value} is not mounted`).toBe(value);
        continue;
      }
      const reason = refusal(spec, name, value);
      if (reason) refused.push(reason);
    }
    expect(refused).toEqual([]);
    // Addresses of other apps: their service name and internal port (the internal listener).
    for (const [name, value] of env) {
      const address = /^https?:\/\/([a-z0-9-]+):(\d+)/.exec(value);
      if (!address || !apps.includes(address[1]!)) continue;
      expect(`${name} → ${address[2]}`).toBe(`${name} → ${defaultInternalPort(specs.get(address[1]!)!)}`);
    }
  });

  it('publishes only the gateway and the RabbitMQ management UI, on 127.0.0.1 only, and never an internal port', () => {
    const published = Object.entries(services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([name]) => name).sort()).toEqual(['gateway', 'rabbitmq']);
    const internalPorts = apps.map((app) => String(defaultInternalPort(specs.get(app)!)));
    for (const [name, service] of published) {
      for (const port of service.ports ?? []) {
        // HOST_IP:HOST_PORT:CONTAINER_PORT, no range, no other interface.
        const [, hostPort, containerPort] = /^127\.0\.0\.1:(\d+):(\d+)$/.exec(port) ?? [];
        expect([name, port, hostPort !== undefined]).toEqual([name, port, true]);
        expect([name, port, internalPorts.includes(hostPort!) || internalPorts.includes(containerPort!)]).toEqual([name, port, false]);
      }
    }
    expect(services['gateway']?.ports).toEqual([`127.0.0.1:${defaultPort(specs.get('gateway')!)}:${defaultPort(specs.get('gateway')!)}`]);
    for (const [name, service] of Object.entries(services))
      expect([name, (service as { expose?: unknown }).expose]).toEqual([name, undefined]);
  });

  it('has no default for any variable: every `${…}` is required, and says how to make the secret', () => {
    const used = strings(parse(composeText)).flatMap(references);
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((ref) => ref.op !== ':?')).toEqual([]);
    expect([...new Set(used.map((ref) => ref.name))].sort()).toEqual(Object.keys(operatorShell).sort());
    // Without them, compose stops before anything starts, naming the variable and the command that makes one:
    // tools/internal-keys.mjs for the apps' keys and LOG_PATH_SECRET (what it prints), openssl for the others.
    for (const name of Object.keys(operatorShell)) {
      const value = strings(parse(composeText)).find((s) => references(s).some((ref) => ref.name === name))!;
      const command =
        name in operatorKeys ? 'node tools/internal-keys\\.mjs > docker/\\.env' : `export ${name}=\\$\\(openssl rand -base64 \\d+\\)`;
      expect(() => interpolate(value, {})).toThrow(new RegExp(`${name} is missing a value: set ${name}, e\\.g\\. ${command}`));
      expect(() => interpolate(value, { [name]: '' })).toThrow(name);
    }
    // Every `$` of the file is valid for compose, given the operator's values.
    for (const value of strings(parse(composeText))) expect(() => interpolate(value, operatorShell)).not.toThrow();
    // The header says where the real secrets go: an .env file beside compose.yml, which git ignores.
    const header = composeText.slice(0, composeText.search(/^[^#\s]/m));
    expect(header).toMatch(/docker\/\.env/);
    expect(header).toMatch(/openssl rand/);
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain('.env');
  });
});
