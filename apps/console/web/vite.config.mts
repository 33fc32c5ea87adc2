import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The console's front end (React), one chunk per page, copied by the console's build into dist/apps/console/web. */
export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  plugins: [react()],
  build: {
    outDir: '../../../dist/console-web',
    emptyOutDir: true,
    target: ['chrome100', 'firefox100', 'safari15'],
    sourcemap: false,
    reportCompressedSize: false,
  },
});
