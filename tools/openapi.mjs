// Generates the public API's OpenAPI document from the code: each app's document comes from its
// controllers and DTOs (@nestjs/swagger, Nest preview mode: no database needed), and the gateway's
// assembleOpenApi() merges them, adding the responses the gateway itself gives. The result is
// committed (apps/gateway/src/openapi/openapi.json) and served at GET /api/v1/openapi.json.
//   npm run openapi            write it (after `npm run build`)
//   npm run openapi -- --check fail if the committed document differs from the code or is invalid
//   node tools/openapi.mjs --validate FILE   validate any document (OpenAPI 3.1 schema)
import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';

/** Validates against the official OpenAPI 3.1 JSON schema; exits 1 listing the problems. */
/**
 * @param {Record<string, unknown>} document the parsed JSON
 * @param {string} label
 */
async function validate(document, label) {
  const result = await new Validator().validate(document);
  if (!result.valid) {
    process.stderr.write(`openapi: ${label} is not a valid OpenAPI 3.1 document:\n${JSON.stringify(result.errors, null, 2)}\n`);
    process.exit(1);
  }
}

const validateIndex = process.argv.indexOf('--validate');
if (validateIndex > 0) {
  const file = process.argv[validateIndex + 1];
  await validate(JSON.parse(await readFile(file, 'utf8')), file);
  process.stdout.write(`openapi: ${file} is valid\n`);
  process.exit(0);
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** @param {string} path */
const dist = (path) => join(root, 'dist', path);
const target = join(root, 'apps/gateway/src/openapi/openapi.json');

if (!existsSync(dist('libs/platform/src/index.js'))) {
  process.stderr.write('openapi: run `npm run build` first\n');
  process.exit(2);
}
/** @type {typeof import('../libs/platform/src/index.js')} */
const { describeApi } = require(dist('libs/platform/src/index.js'));
/**
 * apps/gateway/src/openapi/assemble.ts's signature, written out: importing its types would bring in
 * @svc/webhook-signing, an ES module package whose sources' extensionless imports nodenext refuses.
 * @typedef {{ app: string, document: import('@nestjs/swagger').OpenAPIObject }} ApiPart
 * @type {{ assembleOpenApi: (parts: ApiPart[]) => import('@nestjs/swagger').OpenAPIObject }}
 */
const { assembleOpenApi } = require(dist('apps/gateway/src/openapi/assemble.js'));

/** @type {ApiPart[]} */
const parts = [];
for (const name of (await readdir(join(root, 'apps'))).sort()) {
  const file = dist(`apps/${name}/src/app.js`);
  if (!existsSync(file)) continue; // not a web app (the admin command line)
  const { app } = require(file);
  parts.push({ app: app.name, document: await describeApi(app) });
}
const document = assembleOpenApi(parts);
await validate(JSON.parse(JSON.stringify(document)), 'the assembled document');
const text = `${JSON.stringify(document, null, 2)}\n`;

if (process.argv.includes('--check')) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== text) {
    process.stderr.write(
      'openapi: apps/gateway/src/openapi/openapi.json is out of date with the code; run `npm run build && npm run openapi`\n',
    );
    process.exit(1);
  }
  process.stdout.write('openapi: the committed document matches the code\n');
} else {
  await writeFile(target, text);
  await copyFile(target, dist('apps/gateway/src/openapi/openapi.json'));
  process.stdout.write(`openapi: wrote ${target} (${parts.map((p) => p.app).join(', ')})\n`);
}
