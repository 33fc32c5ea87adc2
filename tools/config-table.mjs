// The table of environment variables in docs/configuration.md, generated from the apps' config specs
// (the code that validates them at boot), so the documentation cannot drift from what the apps read.
//   node tools/config-table.mjs          rewrite the table in docs/configuration.md (after `npm run build`)
//   node tools/config-table.mjs --check  fail if docs/configuration.md's table differs
import 'reflect-metadata';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';
const DOC = 'docs/configuration.md';

// The same module instance the apps' config files load, so that it knows which specs are secrets.
/** @type {typeof import('../libs/platform/src/index.js')} */
const { hasPublishedDefault } = require(join(root, 'dist/libs/platform/src/index.js'));
/** @typedef {import('../libs/platform/src/index.js').ConfigSpec[string]} Validator One variable's spec (envalid). */

// One entry per variable and app: apps that read a variable may differ in its default and meaning
// (PORT is 3000 for the gateway, 3001 for contacts-api, …).
/** @type {Map<string, Map<string, Validator>>} */
const entries = new Map();
for (const app of readdirSync(join(root, 'apps')).sort()) {
  const dir = join(root, 'dist/apps', app, 'src');
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.config.js'))) {
    for (const [exported, spec] of Object.entries(require(join(dir, file)))) {
      if (!exported.endsWith('ConfigSpec')) continue;
      for (const [name, validator] of Object.entries(spec)) {
        const perApp = entries.get(name) ?? new Map();
        perApp.set(app, validator);
        entries.set(name, perApp);
      }
    }
  }
}

/** @param {Validator} validator */
const defaultOf = (validator) => {
  const { default: value, devDefault } = validator;
  if (value !== undefined) return value === '' ? '(empty)' : `\`${value}\``;
  if (hasPublishedDefault(validator)) return 'required (a development value with `ALLOW_INSECURE_DEV_DEFAULTS=true`)';
  return devDefault !== undefined ? 'required in production' : 'required';
};
// A variable whose apps agree on default and meaning is one row; otherwise one row per group of
// apps that agree, in the order of their first app.
/** @type {string[]} */
const rows = [];
for (const name of [...entries.keys()].sort((a, b) => a.localeCompare(b))) {
  /** @type {Map<string, string[]>} */
  const groups = new Map();
  for (const [app, validator] of /** @type {Map<string, Validator>} */ (entries.get(name))) {
    const cells = `${defaultOf(validator)} | ${validator.desc ?? ''}`;
    groups.set(cells, [...(groups.get(cells) ?? []), app]);
  }
  for (const [cells, apps] of groups) rows.push(`| \`${name}\` | ${apps.join(', ')} | ${cells} |`);
}
const table = ['| Variable | Apps | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');

const doc = readFileSync(join(root, DOC), 'utf8');
const [before, rest] = doc.split(START);
const after = rest?.split(END)[1];
if (after === undefined) throw new Error(`${DOC} needs the markers ${START} and ${END}`);
const updated = `${before}${START}\n${table}\n${END}${after}`;
if (process.argv.includes('--check')) {
  if (updated !== doc) {
    process.stderr.write(
      `config-table: ${DOC} lists other settings than the code reads; run \`npm run build && node tools/config-table.mjs\`\n`,
    );
    process.exit(1);
  }
} else {
  writeFileSync(join(root, DOC), updated);
}
