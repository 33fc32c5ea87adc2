import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            // Apps depend on libraries, never on each other; libraries never on apps.
            { sourceTag: 'scope:app', onlyDependOnLibsWithTags: ['scope:lib'] },
            { sourceTag: 'scope:lib', onlyDependOnLibsWithTags: ['scope:lib'] },
            // contracts: shapes only. Nothing heavy, no other library.
            {
              sourceTag: 'type:contracts',
              onlyDependOnLibsWithTags: ['type:contracts'],
              bannedExternalImports: ['typeorm', 'pg', 'amqplib', 'ioredis', 'fastify', '@nestjs/core', '@nestjs/platform-fastify'],
            },
            // util: self-contained helpers (webhook signing) that a business may copy; no other library.
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
            { sourceTag: 'type:messaging', onlyDependOnLibsWithTags: ['type:data', 'type:platform', 'type:contracts'] },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:data', 'type:platform', 'type:contracts'] },
            // clients: one service's internal HTTP routes, for the apps that call them.
            { sourceTag: 'type:clients', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
            {
              sourceTag: 'type:testing',
              onlyDependOnLibsWithTags: ['type:domain', 'type:messaging', 'type:data', 'type:platform', 'type:contracts', 'type:util'],
            },
            // The testing harness is for tests; runtime code of an app never needs it.
            {
              sourceTag: 'type:service',
              onlyDependOnLibsWithTags: ['type:domain', 'type:messaging', 'type:data', 'type:platform', 'type:contracts', 'type:util', 'type:clients', 'type:testing'],
            },
            {
              sourceTag: 'type:cli',
              onlyDependOnLibsWithTags: ['type:domain', 'type:messaging', 'type:data', 'type:platform', 'type:contracts', 'type:util', 'type:testing'],
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
