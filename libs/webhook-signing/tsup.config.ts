import { defineConfig } from 'tsup';

/** The publishable package: ESM and CommonJS with type declarations, from src/index.ts (node:crypto only). */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { composite: false, incremental: false } },
  tsconfig: 'tsconfig.lib.json',
  outDir: 'dist',
  clean: true,
  target: 'node18',
  platform: 'node',
});
