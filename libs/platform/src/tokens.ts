import type { Config } from './config';
import type { baseConfigSpec } from './config';

/**
 * The settings the platform itself reads (`PlatformConfig`: readiness, internal auth) and the
 * libraries' generic jobs. An app injects its own settings through its own token (`CHAT_CONFIG`…).
 */
export const APP_CONFIG = Symbol('APP_CONFIG');
/** The root pino logger. */
export const APP_LOGGER = Symbol('APP_LOGGER');

export type PlatformConfig = Config<typeof baseConfigSpec>;
