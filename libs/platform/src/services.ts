import { baseConfigSpec, port, secret, url } from './config';
import { InternalCaller, internalAuthConfigSpec, internalKeySpec } from './internal-auth';

/**
 * The port of each app on a development machine: its PORT default, and the default of the settings
 * through which the other apps reach it (`CONTACTS_API_URL` is `http://127.0.0.1:3001`).
 */
export const SERVICE_PORTS = {
  gateway: 3000,
  'contacts-api': 3001,
  'identity-issuer': 3002,
  'knowledge-api': 3003,
  'events-api': 3004,
  'webhook-dispatcher': 3005,
  chat: 3006,
  console: 3007,
  'mcp-server': 3008,
} as const;

export type ServiceName = keyof typeof SERVICE_PORTS;

/** Each app's internal listener is its port + 100 on a development machine (contacts-api: 3101). */
export const INTERNAL_PORT_OFFSET = 100;

/** The public address on a development machine: the gateway's port on localhost. */
export const DEFAULT_APP_URL = `http://localhost:${SERVICE_PORTS.gateway}`;

type Snake<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}_${Snake<Tail>}` : S;
/** The name of the setting that holds an app's address: `CONTACTS_API_URL` for contacts-api. */
export type ServiceUrlSetting<S extends ServiceName> = `${Uppercase<Snake<S>>}_URL`;

export function serviceUrlSetting<S extends ServiceName>(service: S): ServiceUrlSetting<S> {
  return `${service.toUpperCase().replaceAll('-', '_')}_URL` as ServiceUrlSetting<S>;
}

/** The setting of the address of another app's internal listener (`CONTACTS_API_URL`); by default on this machine. */
export function serviceUrl(service: ServiceName, desc: string) {
  return url({ default: `http://127.0.0.1:${SERVICE_PORTS[service] + INTERNAL_PORT_OFFSET}`, desc });
}

/** The key of the hashes of path segments in access lines (see `AccessPathRedactor`). */
export const logPathConfigSpec = {
  LOG_PATH_SECRET: secret(32)({
    devDefault: 'development-only-log-path-secret-0123456789',
    desc: "Secret (32+ chars) that keys the hashes of refs and ids in the paths of access lines (`~` + 16 characters); the same value in every app, so one ref has the same hash in each app's lines. It signs nothing.",
  }),
};

/** The settings every app that serves HTTP has: the base ones, the internal auth, its PORT and INTERNAL_PORT. */
export function serviceConfigSpec(service: ServiceName, portDesc: string) {
  return {
    ...baseConfigSpec,
    ...internalAuthConfigSpec,
    ...logPathConfigSpec,
    PORT: port({ default: SERVICE_PORTS[service], desc: portDesc }),
    INTERNAL_PORT: port({
      default: SERVICE_PORTS[service] + INTERNAL_PORT_OFFSET,
      desc: 'Port of the internal listener: the `/internal/…` routes the other apps call, `/metrics`, and every public route too. Never exposed by the Ingress or the public origin (there `/internal/…` and `/metrics` are 404).',
    }),
  };
}

/** The settings of an app that also calls other apps: `serviceConfigSpec` and its own key (`CHAT_INTERNAL_KEY`). */
export function callerConfigSpec<C extends ServiceName & InternalCaller>(service: C, portDesc: string) {
  return { ...serviceConfigSpec(service, portDesc), ...internalKeySpec(service) };
}
