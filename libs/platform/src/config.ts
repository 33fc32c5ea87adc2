import { BaseValidator, bool, cleanEnv, makeValidator, num, port, str, url, ValidatorSpec } from 'envalid';

export { bool, makeValidator, num, port, str, url };

export type ConfigSpec = Record<string, ValidatorSpec<unknown>>;
export type Config<S extends ConfigSpec> = Readonly<{ [K in keyof S]: S[K] extends ValidatorSpec<infer T> ? T : never }>;

/** Thrown at boot when the environment is invalid; the message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The flag that lets an app start with the development defaults of its secrets. */
export const DEV_DEFAULTS_FLAG = 'ALLOW_INSECURE_DEV_DEFAULTS';

/** Specs of secrets whose `devDefault` is published in the repository (see `asSecret`). */
const publishedDefaults = new WeakSet<object>();
/** Every secret's spec: in production each must be a value of the operator's own (see `productionProblems`). */
const secretSpecs = new WeakSet<object>();

/** The placeholder of the secrets template (k8s/secrets.template.yaml): never a real value. */
export const TEMPLATE_PLACEHOLDER = 'change-me';
/** The shortest secret production accepts, in bytes. */
export const MIN_SECRET_BYTES = 32;
/**
 * Secret values this repository has published (development defaults, and the Compose defaults of
 * earlier versions): production refuses them, as it refuses every `devDefault` of a secret.
 */
const PUBLISHED_SECRETS = new Set<string>([
  'compose-development-only-internal-auth-secret',
  '825c7fabe970d711434486fba8fe969156bc5ffa0653a2125453c09baadb3c23',
]);

/**
 * Marks a validator as a secret's: a `devDefault` given to it is published in this repository, so
 * an app uses it only with ALLOW_INSECURE_DEV_DEFAULTS=true, and refuses to start otherwise.
 */
export function asSecret<T>(validator: BaseValidator<T>): BaseValidator<T> {
  const marked = (spec?: { devDefault?: T }): ValidatorSpec<T> => {
    const made = (validator as (spec?: object) => ValidatorSpec<T>)(spec);
    secretSpecs.add(made);
    if (spec && 'devDefault' in spec) {
      publishedDefaults.add(made);
      if (typeof spec.devDefault === 'string') PUBLISHED_SECRETS.add(spec.devDefault);
    }
    return made;
  };
  return marked as BaseValidator<T>;
}

/**
 * Marks a setting that is not a secret but whose `devDefault` must not be taken silently either
 * (INTERNAL_PUBLIC_KEYS: the development keys' public halves): only with ALLOW_INSECURE_DEV_DEFAULTS=true.
 */
export function markPublishedDefault<T>(spec: ValidatorSpec<T>): ValidatorSpec<T> {
  publishedDefaults.add(spec);
  return spec;
}

/** Production checks of single settings, beyond the ones of every secret (see `refuseInProduction`). */
const productionChecks = new WeakMap<object, (value: never) => string | undefined>();

/**
 * A setting production refuses when `problem` returns a reason (a committed development key among
 * its values); the reason is reported with the other configuration errors.
 */
export function refuseInProduction<T>(spec: ValidatorSpec<T>, problem: (value: T) => string | undefined): ValidatorSpec<T> {
  productionChecks.set(spec, problem);
  return spec;
}

/** True for a secret's spec whose `devDefault` is published (see `asSecret`). */
export function hasPublishedDefault(spec: object): boolean {
  return publishedDefaults.has(spec);
}

/**
 * What production refuses to start with: the template's placeholder in any setting, and a secret
 * that is published in this repository or shorter than MIN_SECRET_BYTES (an empty optional one is off).
 */
function productionProblems(specs: ConfigSpec, values: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const value = values[name];
    const check = productionChecks.get(spec);
    const problem = check && value !== undefined && value !== '' ? check(value as never) : undefined;
    if (problem) problems.push(problem);
    if (typeof value !== 'string' || value === '') continue;
    if (value.includes(TEMPLATE_PLACEHOLDER)) problems.push(`${name} still holds the template's "${TEMPLATE_PLACEHOLDER}"`);
    else if (!secretSpecs.has(spec)) continue;
    else if (PUBLISHED_SECRETS.has(value)) problems.push(`${name} is a value published in this repository: set a secret of your own`);
    else if (Buffer.byteLength(value) < MIN_SECRET_BYTES) problems.push(`${name} must be at least ${MIN_SECRET_BYTES} bytes in production`);
  }
  return problems;
}

/** A string of at least `min` characters: for secrets that must not be guessable; `orEmpty` also accepts '' (an optional one). */
export const secret = (min: number, { orEmpty = false } = {}) =>
  asSecret(
    makeValidator<string>((value) => {
      if (value.length < min && !(orEmpty && value === '')) throw new Error(`must be at least ${min} characters`);
      return value;
    }),
  );

/** A non-negative whole number of milliseconds, at most `max`. */
export const millis = (max = Number.MAX_SAFE_INTEGER) =>
  makeValidator<number>((value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n > max) throw new Error(`must be a whole number of milliseconds up to ${max}`);
    return n;
  });

/** An http(s) URL with its trailing slash dropped; throws `problem` for anything else. */
function httpUrl(value: string, problem: string): string {
  const parsed = URL.canParse(value) ? new URL(value) : undefined;
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) throw new Error(problem);
  return value.replace(/\/+$/, '');
}

/** An http(s) URL (a trailing slash dropped), or empty: the feature it serves is off. */
export const httpUrlOrEmpty = makeValidator<string>((value) => (value === '' ? value : httpUrl(value, 'must be an http(s) URL, or empty')));

/** Comma-separated http(s) URLs (each without its trailing slash), or empty. */
export const httpUrlListOrEmpty = makeValidator<string>((value) =>
  value.trim() === ''
    ? ''
    : value
        .split(',')
        .map((one) => httpUrl(one.trim(), 'must be comma-separated http(s) URLs, or empty'))
        .join(','),
);

/** A positive whole number. */
export const count = makeValidator<number>((value) => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1) throw new Error('must be a whole number above 0');
  return n;
});

/**
 * A setting an app can do without: empty ('') unless it is set, which the app reads as none, or the
 * feature off. Its validator's values include '' (a number's alone do not).
 */
export function optional<T extends string | number>(
  validator: BaseValidator<T> & ('' extends T ? unknown : never),
  desc: string,
): ValidatorSpec<T> {
  return validator({ default: '' as T, desc });
}

/** Settings every app has; an app that serves HTTP takes them with its PORT from `serviceConfigSpec`. */
export const baseConfigSpec = {
  NODE_ENV: str({
    choices: ['development', 'test', 'production'],
    default: 'development',
    desc: 'Runtime mode; `production` removes development defaults for secrets (elsewhere they need ALLOW_INSECURE_DEV_DEFAULTS=true).',
  }),
  [DEV_DEFAULTS_FLAG]: bool({
    default: false,
    desc: 'Development machines only (`npm start` sets it): start with the development default of a secret or key that is not set (each calling app: `<APP>_INTERNAL_KEY`, INTERNAL_PUBLIC_KEYS, LOG_PATH_SECRET, WEBHOOK_SECRET_KEY); those values are published in this repository. Without it, an app with an unset secret refuses to start, naming it.',
  }),
  HOST: str({
    default: '127.0.0.1',
    desc: 'Interface the HTTP server listens on: this machine only unless set (containers and Kubernetes set `0.0.0.0`).',
  }),
  LOG_LEVEL: str({
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    desc: 'Minimum level of the JSON logs on stdout.',
  }),
  SHUTDOWN_DELAY_MS: millis(60_000)({
    default: 0,
    desc: 'On SIGTERM, how long to report not-ready before closing the listener (let load balancers notice). Set to ~5000 in Kubernetes.',
  }),
  SHUTDOWN_TIMEOUT_MS: millis(600_000)({
    default: 10_000,
    desc: 'After the listener closed, how long in-flight requests may still run; connections busy after that (a hung call, a client that stopped reading) are cut, so that the process exits.',
  }),
} satisfies ConfigSpec;

/** Reads and validates `specs` from `env`; throws a ConfigError naming every bad variable. */
export function loadConfig<S extends ConfigSpec>(specs: S, env: NodeJS.ProcessEnv = process.env): Config<S> {
  // Unset NODE_ENV means development (envalid applies devDefault only when NODE_ENV is set).
  const effective = { NODE_ENV: 'development', ...env };
  // Secrets left unset that would take their published development default.
  const defaulted =
    effective.NODE_ENV === 'production'
      ? []
      : Object.keys(specs).filter((name) => env[name] === undefined && hasPublishedDefault(specs[name] as object));
  const cleaned = cleanEnv(effective, specs, {
    reporter: ({ errors, env: values }) => {
      const lines = Object.entries(errors).map(
        ([name, error]) => `${name} ${(error as Error).name === 'EnvMissingError' ? 'is required' : (error as Error).message}`,
      );
      if ((values as Record<string, unknown>)[DEV_DEFAULTS_FLAG] !== true) {
        for (const name of defaulted) {
          lines.push(
            `${name} is not set and its development default is published in the repository: set ${name}, or ${DEV_DEFAULTS_FLAG}=true on a development machine`,
          );
        }
      }
      if (effective.NODE_ENV === 'production') lines.push(...productionProblems(specs, values as Record<string, unknown>));
      if (lines.length > 0) throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
    },
  });
  // A plain frozen object: envalid's strict proxy throws on reads of unknown keys, which Nest does.
  const plain: Record<string, unknown> = {};
  for (const name of Object.keys(specs)) plain[name] = (cleaned as Record<string, unknown>)[name];
  return Object.freeze(plain) as Config<S>;
}
