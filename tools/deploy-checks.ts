// What the deployment tests (tools/docker.spec.ts, tools/k8s.spec.ts) need to know about the apps,
// read from the apps themselves: which serve HTTP, and what their config specs demand.
import { ConfigSpec, loadConfig } from '@svc/platform';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(__dirname, '..');

/** Apps that serve HTTP (they have `src/app.ts`); the admin command line does not. */
export function servingApps(): string[] {
  return readdirSync(join(root, 'apps'))
    .filter((app) => existsSync(join(root, 'apps', app, 'src', 'app.ts')))
    .sort();
}

/** The `<camelName>ConfigSpec` exported by `apps/<app>/src/<app>.config.ts`. */
export async function configSpecOf(app: string): Promise<ConfigSpec> {
  const exported: Record<string, unknown> = await import(join(root, 'apps', app, 'src', `${app}.config`));
  const specs = Object.entries(exported).filter(([name]) => name.endsWith('ConfigSpec'));
  if (specs.length !== 1) throw new Error(`apps/${app}/src/${app}.config.ts should export one *ConfigSpec, found ${specs.length}`);
  return specs[0]![1] as ConfigSpec;
}

/** The port an app listens on unless told otherwise. */
export function defaultPort(spec: ConfigSpec): number {
  const port = spec['PORT']?.default;
  if (typeof port !== 'number') throw new Error('the config spec has no numeric PORT default');
  return port;
}

/** The port of an app's internal listener (`/internal/…` routes, `/metrics`) unless told otherwise. */
export function defaultInternalPort(spec: ConfigSpec): number {
  const port = spec['INTERNAL_PORT']?.default;
  if (typeof port !== 'number') throw new Error('the config spec has no numeric INTERNAL_PORT default');
  return port;
}

const THIS_MACHINE = /\/\/(127\.0\.0\.1|localhost)[:/]|^(127\.0\.0\.1|localhost)$/;

/**
 * What a deployment must set for an app: every variable without a default (required in
 * production, where development defaults do not apply) and every address whose default points at
 * this machine (right on a laptop, wrong in a container): a service's URL, or HOST, the interface
 * an app listens on.
 */
export function mustBeSet(spec: ConfigSpec): string[] {
  return Object.entries(spec)
    .filter(
      ([, validator]) => validator.default === undefined || (typeof validator.default === 'string' && THIS_MACHINE.test(validator.default)),
    )
    .map(([name]) => name)
    .sort();
}

/** Why `value` is refused for `name` (in production unless `nodeEnv` says otherwise), or undefined when the app accepts it. */
export function refusal(spec: ConfigSpec, name: string, value: string, nodeEnv = 'production'): string | undefined {
  const validator = spec[name];
  if (!validator) return undefined;
  try {
    loadConfig({ [name]: validator }, { NODE_ENV: nodeEnv, [name]: value });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A setting as the app will see it: the deployment's value, else the spec's default. */
export function effective(spec: ConfigSpec, env: ReadonlyMap<string, string>, name: string): unknown {
  return env.get(name) ?? spec[name]?.default;
}

/** What closing the broker connection may take at the end of a shutdown (libs/messaging `closeWithin`). */
export const BROKER_CLOSE_MS = 5_000;

export interface Drain {
  /** SHUTDOWN_DELAY_MS: reporting not-ready while endpoints and the ingress stop sending. */
  delay: number;
  /** The app's own work stopping (`backgroundDrainMs` of its config module), before the listener closes. */
  background: number;
  /** SHUTDOWN_TIMEOUT_MS: requests in flight after the listener closed (busy connections are cut after it). */
  listener: number;
  /** Closing the broker connection, for an app that has one. */
  close: number;
}

/**
 * How long after SIGTERM an app may still be busy, phase by phase as Nest runs them one after
 * another: the readiness delay (a before-shutdown hook), the app's own before-shutdown work (the
 * dispatcher's attempts in flight, the chat's answers), the listener's close with its deadline,
 * then the shutdown hooks (relay, broker, pool). An outbound call made by a request (the gateway's
 * proxied call) ends with the listener's deadline, so it is not a phase of its own.
 */
export async function drainMs(app: string, spec: ConfigSpec, env: ReadonlyMap<string, string>): Promise<Drain> {
  const setting = (name: string) => Number(effective(spec, env, name) ?? 0);
  const exported: { backgroundDrainMs?: (config: Record<string, number>) => number } = await import(
    join(root, 'apps', app, 'src', `${app}.config`)
  );
  const timeouts = Object.fromEntries(
    Object.keys(spec)
      .filter((name) => name.endsWith('_MS'))
      .map((name) => [name, setting(name)]),
  );
  return {
    delay: setting('SHUTDOWN_DELAY_MS'),
    background: exported.backgroundDrainMs?.(timeouts) ?? 0,
    listener: setting('SHUTDOWN_TIMEOUT_MS'),
    close: 'RABBITMQ_URL' in spec ? BROKER_CLOSE_MS : 0,
  };
}
