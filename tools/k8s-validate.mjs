// Validates Kubernetes objects offline against the API schemas that `kubernetes-models` ships, in
// two passes: its JSON-schema validators (types, enums, required fields, formats) and a type check
// of the objects against its TypeScript declarations, which also refuses unknown fields (a
// misspelt `readinesProbe` would otherwise be dropped silently by the API server).
//   node tools/k8s-validate.mjs FILE.yaml...   (a FILE of `-` is stdin)
// Prints one JSON line {"objects":[{"source","kind","name","errors":[…]}]}; exits 1 if any object
// has errors. An ES module because kubernetes-models is ESM-only (tools/k8s.spec.ts runs it).
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @typedef {object} Manifest One Kubernetes object as its YAML document gives it.
 * @property {unknown} [apiVersion]
 * @property {unknown} [kind]
 * @property {{ name?: unknown }} [metadata]
 * @property {Record<string, unknown>} [data]
 */
/**
 * @typedef {object} Checked One document of a source and what is wrong with it.
 * @property {string} source a file, or `-` for stdin
 * @property {Manifest} [value] absent when the document does not parse
 * @property {unknown} kind
 * @property {unknown} name
 * @property {string[]} errors
 */

/**
 * The packages with the schemas of custom resources, by API group (the operators the manifests use).
 * @type {Record<string, string>}
 */
const CRD_PACKAGES = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'keda.sh': '@kubernetes-models/keda',
  'gateway.networking.k8s.io': '@kubernetes-models/gateway-api',
  'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg',
};
/**
 * API groups without a model package: their kinds' interfaces are in tools/k8s-custom-resources.ts,
 * and objects of them get the type check only (no JSON schema).
 */
const TYPED_ONLY_GROUPS = new Set(['rabbitmq.com']);
const CUSTOM_RESOURCES = resolve(root, 'tools/k8s-custom-resources.js');

/** @param {string} apiVersion */
const groupOf = (apiVersion) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

/**
 * The module of a kind's model: `apps/v1` + `Deployment` → `kubernetes-models/apps/v1/Deployment`;
 * a custom resource from its operator's package (`keda.sh/v1alpha1` + `ScaledObject` →
 * `@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject`) or from tools/k8s-custom-resources.ts.
 * @param {{ apiVersion: string, kind: string }} object
 */
const modelPath = ({ apiVersion, kind }) => {
  const group = groupOf(apiVersion);
  if (TYPED_ONLY_GROUPS.has(group)) return CUSTOM_RESOURCES;
  return `${CRD_PACKAGES[group] ?? 'kubernetes-models'}/${apiVersion}/${kind}`;
};

/**
 * @param {string[]} sources
 * @returns {Checked[]}
 */
function readObjects(sources) {
  /** @type {Checked[]} */
  const objects = [];
  for (const source of sources) {
    const text = readFileSync(source === '-' ? 0 : source, 'utf8');
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0) {
        objects.push({ source, kind: '?', name: '?', errors: document.errors.map((e) => e.message) });
        continue;
      }
      /** @type {Manifest | null | undefined} */
      const value = document.toJS();
      if (value === null || value === undefined) continue;
      // kustomize wraps a generated Secret's long base64 values; the API server's decoder skips
      // line breaks, the schema's `byte` format does not.
      if (value.kind === 'Secret' && value.data) {
        for (const [key, data] of Object.entries(value.data)) if (typeof data === 'string') value.data[key] = data.replace(/\s+/g, '');
      }
      objects.push({ source, value, kind: value.kind ?? '?', name: value.metadata?.name ?? '?', errors: [] });
    }
  }
  return objects;
}

/** @param {Checked[]} objects */
async function validateSchemas(objects) {
  for (const object of objects.filter((o) => o.value)) {
    const { apiVersion, kind } = /** @type {Manifest} */ (object.value);
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
      object.errors.push('apiVersion and kind are required');
      continue;
    }
    if (TYPED_ONLY_GROUPS.has(groupOf(apiVersion))) continue;
    let Model;
    try {
      Model = (await import(modelPath({ apiVersion, kind })))[kind];
    } catch {
      object.errors.push(`no schema for ${apiVersion} ${kind}`);
      continue;
    }
    try {
      new Model(object.value).validate();
    } catch (caught) {
      // kubernetes-models' ValidationError: ajv's errors
      const err = /** @type {{ message: string, errors?: { instancePath?: string, message?: string }[] }} */ (caught);
      const details = err.errors?.map((e) => `${e.instancePath || '/'} ${e.message}`) ?? [err.message];
      object.errors.push(...details);
    }
  }
}

/**
 * Each object as an object literal typed with its model's interface: excess property checks.
 * @param {Checked[]} objects
 */
function checkTypes(objects) {
  // Their apiVersion and kind are strings (validateSchemas noted it otherwise).
  const checked = /** @type {(Checked & { value: { apiVersion: string, kind: string } })[]} */ (
    objects.filter((o) => o.value && !o.errors.some((e) => e.startsWith('no schema') || e.startsWith('apiVersion')))
  );
  if (checked.length === 0) return;
  const fileName = resolve(root, '__k8s-objects__.mts');
  const text = checked
    .map(
      (o, i) =>
        `import type { I${o.kind} as T${i} } from ${JSON.stringify(modelPath(o.value))};\nexport const o${i}: T${i} = ${JSON.stringify(o.value)};`,
    )
    .join('\n');
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (name, ...rest) =>
    name === fileName ? ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true) : getSourceFile.call(host, name, ...rest);
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  const program = ts.createProgram([fileName], options, host);
  const source = /** @type {import('typescript').SourceFile} */ (program.getSourceFile(fileName)); // the host's own file
  for (const diagnostic of ts.getPreEmitDiagnostics(program, source)) {
    const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
    // Two lines per object: its import, then its literal.
    const object = checked[Math.floor(line / 2)];
    object.errors.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '));
  }
}

const sources = process.argv.slice(2);
if (sources.length === 0) {
  process.stderr.write('usage: node tools/k8s-validate.mjs FILE.yaml... (- for stdin)\n');
  process.exit(2);
}
const objects = readObjects(sources);
await validateSchemas(objects);
checkTypes(objects);
const report = objects.map(({ source, kind, name, errors }) => ({ source, kind, name, errors }));
process.stdout.write(`${JSON.stringify({ objects: report })}\n`);
process.exitCode = report.some((o) => o.errors.length > 0) ? 1 : 0;
