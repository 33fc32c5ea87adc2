import { existsSync } from 'node:fs';

/** Where an app keeps code that only its tests use, beside its sources (`src/test-support/`). */
export const TEST_SUPPORT_DIR = 'test-support';

/** Loads a module of the app's `src/test-support/` only with `NODE_ENV=test` (images never contain those folders). */
export function loadTestSupport<T>(nodeEnv: string, path: string): T | undefined {
  if (nodeEnv !== 'test' || !['', '.js', '.ts'].some((extension) => existsSync(`${path}${extension}`))) return undefined;
  // A path known only at run time on purpose: the production build has no such file to bundle.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path) as T;
}
