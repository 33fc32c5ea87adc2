// Compiles every app and library (TypeScript → CommonJS) into dist/, mirroring the source tree so
// that `@svc/*` imports, rewritten to relative paths by SWC, resolve in dist/ too. Type checking is
// `npm run typecheck` (tsc); SWC only transpiles, which takes a second for the whole workspace.
//   node tools/build.mjs                  every project (npm run build)
//   node tools/build.mjs apps/gateway …   only these projects, into dist/<project root> (the Nx
//                                         `build` target of each project runs this)
//   node tools/build.mjs --production     what the images hold: no test-only code, that is neither
//                                         libs/testing nor any app's src/test-support/ (routes
//                                         only the end-to-end suites use)
import { transformFile } from '@swc/core';
import { build as bundle } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
const TESTS = /\.(spec|integration-spec|e2e-spec|outage-spec)\.ts$/;
// The chat widget runs in visitors' browsers: bundled by esbuild into one file (below), not compiled for Node.
const WIDGET_SRC = join(root, 'apps/chat/src/widget');
const WIDGET_OUT = join(out, 'apps/chat/src/static/widget.js');

const args = process.argv.slice(2);
const production = args.includes('--production');
const TEST_ONLY = [join(root, 'libs/testing/'), `${sep}test-support${sep}`];
const projects = args.filter((arg) => arg !== '--production').map((dir) => dir.replace(/\/+$/, ''));
for (const dir of projects) {
  if (!/^(apps|libs)\/[^/]+$/.test(dir)) throw new Error(`build: ${dir} is not a project root (apps/<name> or libs/<name>)`);
}
const { compilerOptions } = JSON.parse(await readFile(join(root, 'tsconfig.base.json'), 'utf8'));

async function* sources(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else yield path;
  }
}

const options = (filename) => ({
  filename,
  sourceMaps: true,
  swcrc: false,
  module: { type: 'commonjs', strictMode: true },
  jsc: {
    target: 'es2022',
    keepClassNames: true,
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    baseUrl: root,
    paths: compilerOptions.paths,
  },
});

// Files are replaced in place (processes started from dist/ keep working during a rebuild); what
// no longer has a source is removed at the end.
const written = new Set();
let files = 0;
const roots =
  projects.length > 0
    ? projects
    : (await Promise.all(['apps', 'libs'].map(async (top) => (await readdir(join(root, top))).map((p) => `${top}/${p}`)))).flat();
for (const project of roots) {
  const src = join(root, project, 'src');
  for await (const file of sources(src)) {
    if (file.startsWith(`${WIDGET_SRC}/`)) continue;
    if (production && TEST_ONLY.some((part) => file.includes(part))) continue;
    const target = join(out, relative(root, file));
    await mkdir(dirname(target), { recursive: true });
    if (file.endsWith('.ts') && !file.endsWith('.d.ts') && !TESTS.test(file)) {
      const { code, map } = await transformFile(file, options(file));
      const js = target.replace(/\.ts$/, '.js');
      await writeFile(js, `${code}\n//# sourceMappingURL=${js.split('/').pop()}.map\n`);
      written.add(js);
      if (map) {
        await writeFile(`${js}.map`, map);
        written.add(`${js}.map`);
      }
      files += 1;
    } else if (file.endsWith('.json')) {
      await copyFile(file, target);
      written.add(target);
    }
  }
}
// The widget: one standalone script (an IIFE: no global of its own), minified for today's browsers.
if (roots.includes('apps/chat')) {
  await mkdir(dirname(WIDGET_OUT), { recursive: true });
  await bundle({
    entryPoints: [join(WIDGET_SRC, 'main.ts')],
    outfile: WIDGET_OUT,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: true,
    legalComments: 'none',
    tsconfig: join(WIDGET_SRC, 'tsconfig.json'),
    logLevel: 'warning',
  });
  written.add(WIDGET_OUT);
}

// The console's front end: Vite (React), one chunk per page, into dist/apps/console/web (served by the console app).
const CONSOLE_WEB = join(root, 'apps/console/web');
const CONSOLE_WEB_OUT = join(out, 'apps/console/web');
const { build: viteBuild } = await import('vite');
const { default: react } = await import('@vitejs/plugin-react');
await viteBuild({
  root: CONSOLE_WEB,
  configFile: false,
  logLevel: 'warn',
  plugins: [react()],
  build: {
    outDir: CONSOLE_WEB_OUT,
    emptyOutDir: true,
    target: ['chrome100', 'firefox100', 'safari15'],
    sourcemap: false,
    reportCompressedSize: false,
  },
});
for await (const file of sources(CONSOLE_WEB_OUT)) written.add(file);

async function removeStale(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await removeStale(path);
      if ((await readdir(path)).length === 0) await rm(path, { recursive: true });
    } else if (!written.has(path)) await rm(path);
  }
}
for (const dir of projects.length > 0 ? projects.map((project) => join(out, project)) : [out]) await removeStale(dir);
process.stdout.write(`build: ${files} files compiled into dist/\n`);
