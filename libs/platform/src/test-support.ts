import { existsSync } from 'node:fs';

/** Where an app keeps code that only its tests use, beside its sources (`src/test-support/`). */
export const TEST_SUPPORT_DIR = 'test-support';

/**
 * Loads a module of an app's `src/test-support/` folder (for example a route through which
 * end-to-end suites feed the app what its queue would): only with `NODE_ENV=test`, which the test
 * harness sets and a deployment never does. The images' build never sees those folders
 * (.dockerignore), so there it is `undefined` whatever NODE_ENV says.
 */
export function loadTestSupport<T>(nodeEnv: string, path: string): T | undefined {
  if (nodeEnv !== 'test' || !['', '.js', '.ts'].some((extension) => existsSync(`${path}${extension}`))) return undefined;
  // A path known only at run time on purpose: the production build has no such file to bundle.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path) as T;
}
