import type { Config } from './config';
import type { baseConfigSpec } from './config';

/** The app's validated configuration (each app narrows the type to its own spec). */
export const APP_CONFIG = Symbol('APP_CONFIG');
/** The root pino logger. */
export const APP_LOGGER = Symbol('APP_LOGGER');

export type PlatformConfig = Config<typeof baseConfigSpec>;
