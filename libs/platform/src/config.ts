import { bool, cleanEnv, makeValidator, num, port, str, url, ValidatorSpec } from 'envalid';

export { bool, makeValidator, num, port, str, url };

export type ConfigSpec = Record<string, ValidatorSpec<unknown>>;
export type Config<S extends ConfigSpec> = Readonly<{ [K in keyof S]: S[K] extends ValidatorSpec<infer T> ? T : never }>;

/** Thrown at boot when the environment is invalid; the message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A string of at least `min` characters: for secrets that must not be guessable. */
export const secret = (min: number) =>
  makeValidator<string>((value) => {
    if (value.length < min) throw new Error(`must be at least ${min} characters`);
    return value;
  });

/** A non-negative whole number of milliseconds, at most `max`. */
export const millis = (max = Number.MAX_SAFE_INTEGER) =>
  makeValidator<number>((value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n > max) throw new Error(`must be a whole number of milliseconds up to ${max}`);
    return n;
  });

/** A positive whole number. */
export const count = makeValidator<number>((value) => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1) throw new Error('must be a whole number above 0');
  return n;
});

/** Settings every app has. Each app adds its own and picks its PORT default. */
export const baseConfigSpec = {
  NODE_ENV: str({ choices: ['development', 'test', 'production'], default: 'development', desc: 'Runtime mode; `production` removes development defaults for secrets.' }),
  HOST: str({ default: '0.0.0.0', desc: 'Interface the HTTP server listens on.' }),
  LOG_LEVEL: str({ choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info', desc: 'Minimum level of the JSON logs on stdout.' }),
  SHUTDOWN_DELAY_MS: millis(60_000)({ default: 0, desc: 'On SIGTERM, how long to report not-ready before closing the listener (let load balancers notice). Set to ~5000 in Kubernetes.' }),
  SHUTDOWN_TIMEOUT_MS: millis(600_000)({
    default: 10_000,
    desc: 'After the listener closed, how long in-flight requests may still run; connections busy after that (a hung call, a client that stopped reading) are cut, so that the process exits.',
  }),
} satisfies ConfigSpec;

/** Reads and validates `specs` from `env`; throws a ConfigError naming every bad variable. */
export function loadConfig<S extends ConfigSpec>(specs: S, env: NodeJS.ProcessEnv = process.env): Config<S> {
  // Unset NODE_ENV means development (envalid applies devDefault only when NODE_ENV is set).
  const cleaned = cleanEnv({ NODE_ENV: 'development', ...env }, specs, {
    reporter: ({ errors }) => {
      const bad = Object.entries(errors);
      if (bad.length === 0) return;
      const lines = bad.map(([name, error]) => `${name} ${(error as Error).name === 'EnvMissingError' ? 'is required' : (error as Error).message}`);
      throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
    },
  });
  // A plain frozen object: envalid's strict proxy throws on reads of unknown keys, which Nest does.
  const plain: Record<string, unknown> = {};
  for (const name of Object.keys(specs)) plain[name] = (cleaned as Record<string, unknown>)[name];
  return Object.freeze(plain) as Config<S>;
}
