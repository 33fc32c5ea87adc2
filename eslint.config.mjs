import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TESTS = ['**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts', '**/*.outage-spec.ts'];
const RUNTIME = ['type:tracing', 'type:domain', 'type:messaging', 'type:jobs', 'type:data', 'type:platform', 'type:contracts', 'type:util'];

/**
 * Which projects may import which. Runtime code (apps and libraries) never imports `type:testing`,
 * so the harness cannot end up in a production build; test files of any project may.
 */
function boundaries({ tests }) {
  const testing = tests ? ['type:testing'] : [];
  return {
    enforceBuildableLibDependency: false,
    allow: [],
    banTransitiveDependencies: false,
    depConstraints: [
      // Apps depend on libraries, never on each other; libraries never on apps.
      { sourceTag: 'scope:app', onlyDependOnLibsWithTags: ['scope:lib'] },
      { sourceTag: 'scope:lib', onlyDependOnLibsWithTags: ['scope:lib'] },
      // tools/: the workspace's checks and generators (config table, Docker, Kubernetes).
      { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:lib'] },
      // contracts: shapes only. Nothing heavy, no other library.
      {
        sourceTag: 'type:contracts',
        onlyDependOnLibsWithTags: ['type:contracts', ...testing],
        bannedExternalImports: ['typeorm', 'pg', 'amqplib', 'ioredis', 'fastify', '@nestjs/core', '@nestjs/platform-fastify'],
      },
      // util: self-contained helpers (webhook signing) that a business may copy; no other library.
      { sourceTag: 'type:util', onlyDependOnLibsWithTags: [...testing] },
      // tracing: OpenTelemetry's start and the trace context kept across hops; no other library.
      { sourceTag: 'type:tracing', onlyDependOnLibsWithTags: [...testing] },
      { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:tracing', 'type:contracts', ...testing] },
      { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', ...testing] },
      // jobs: claims, leases, retries, sweeps and their Nest lifecycle (see libs/jobs).
      { sourceTag: 'type:jobs', onlyDependOnLibsWithTags: ['type:data', 'type:platform', 'type:contracts', ...testing] },
      {
        sourceTag: 'type:messaging',
        onlyDependOnLibsWithTags: ['type:tracing', 'type:jobs', 'type:data', 'type:platform', 'type:contracts', ...testing],
      },
      { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:data', 'type:platform', 'type:contracts', ...testing] },
      // clients: one service's internal HTTP routes, for the apps that call them.
      { sourceTag: 'type:clients', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', ...testing] },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: [...RUNTIME, 'type:testing'] },
      { sourceTag: 'type:service', onlyDependOnLibsWithTags: [...RUNTIME, 'type:clients', ...testing] },
      { sourceTag: 'type:cli', onlyDependOnLibsWithTags: [...RUNTIME, ...testing] },
      // web: the browser front ends (chat widget, console), which share the API's shapes only.
      { sourceTag: 'type:web', onlyDependOnLibsWithTags: ['type:contracts'] },
    ],
  };
}

/**
 * SQL runs through @svc/persistence (`queryRows`, `queryOne`, `execute`), which types each
 * statement's rows; TypeORM's and node-postgres's own `query()` answer `any`. Migrations (schema
 * changes, no rows) and the persistence library itself call `query()`; so do the two places that
 * talk to node-postgres directly: the relay's multi-statement rounds on a connection lent by
 * `withConnection`, and the test harness's statements on the server (CREATE DATABASE).
 */
const RAW_QUERY = {
  selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='query']",
  message:
    "Run SQL with the project's queryRows/queryOne/execute (./statements: typed rows and parameters), not query() (rows of type any).",
};
/** The apps' SQL runs through their own typed runners (`statementsOf`, ADR 017), whose parameters are generated from the schema. */
const UNTYPED_RUNNERS = {
  name: '@svc/persistence',
  importNames: ['queryRows', 'queryOne', 'execute'],
  message: "Run the project's statements through its typed runners (its src/statements.ts, ADR 017).",
};
const RAW_QUERY_ALLOWED = ['libs/persistence/**', '**/migrations/**', 'libs/messaging/src/relay.ts', 'libs/testing/src/database.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'libs/webhook-signing/dist/**', 'node_modules/**', 'coverage/**', '.nx/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      '@nx/enforce-module-boundaries': ['error', boundaries({ tests: false })],
    },
  },
  // No import cycle inside a project either (Nx's boundaries catch those between projects): a cycle
  // makes what a module sees at load time depend on who imported it first.
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.base.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  { files: ['**/*.ts'], ignores: RAW_QUERY_ALLOWED, rules: { 'no-restricted-syntax': ['error', RAW_QUERY] } },
  {
    files: ['apps/**/*.ts', 'libs/accounts/**/*.ts'],
    ignores: TESTS,
    rules: { 'no-restricted-imports': ['error', { paths: [UNTYPED_RUNNERS] }] },
  },
  // Tests (and only tests) may use the harness of libs/testing.
  { files: TESTS, rules: { '@nx/enforce-module-boundaries': ['error', boundaries({ tests: true })] } },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  // Prettier lays the code out at 140 columns (`npm run lint` checks it); what it cannot wrap is
  // held here: code and comments, but not a string, template or URL that must stay whole.
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.js'],
    rules: {
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
);
