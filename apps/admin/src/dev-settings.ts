import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Where `npm start` writes the development machine's own settings (`.local/` is never committed). */
export const DEV_SETTINGS_FILE = resolve(__dirname, '../../../..', '.local/dev-settings.env');

/** `NAME=value` lines; blank lines and `#` comments are skipped. */
export function parseSettings(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) settings[match[1] as string] = (match[2] as string).trim();
  }
  return settings;
}

/**
 * The environment the CLI runs with: on a development machine, the settings `npm start` gave the
 * apps fill in what the caller did not set, so the contract's commands work as written. Production
 * reads only its environment.
 */
export function withDevelopmentSettings(env: NodeJS.ProcessEnv, file = DEV_SETTINGS_FILE): NodeJS.ProcessEnv {
  if (env['NODE_ENV'] === 'production') return env;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return env; // not started with `npm start` here: the defaults and the environment
  }
  return { ...parseSettings(text), ...env };
}
