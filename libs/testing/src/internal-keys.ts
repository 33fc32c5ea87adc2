import { generateInternalKey, INTERNAL_CALLERS, InternalCaller, internalKeySetting, PUBLIC_KEYS_SETTING } from '@svc/platform';
import { randomBytes } from 'node:crypto';

/**
 * Real random keys for a test's apps (they refuse the published development ones): each calling
 * app's own `<APP>_INTERNAL_KEY`, INTERNAL_PUBLIC_KEYS listing `callers` (all by default), LOG_PATH_SECRET.
 */
export function internalKeysEnv(callers: readonly InternalCaller[] = INTERNAL_CALLERS): Record<string, string> {
  const env: Record<string, string> = { LOG_PATH_SECRET: randomBytes(32).toString('hex') };
  const listed: string[] = [];
  for (const caller of INTERNAL_CALLERS) {
    const { seed, publicKey } = generateInternalKey();
    env[internalKeySetting(caller)] = seed;
    if (callers.includes(caller)) listed.push(`${caller}:${publicKey}`);
  }
  env[PUBLIC_KEYS_SETTING] = listed.join(' ');
  return env;
}
