import { FactoryProvider } from '@nestjs/common';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import type { IdentityIssuerConfig } from '../identity-issuer.config';
import { loadDevelopmentKeyRing } from './dev-signing-keys';
import { DevSigningKeysRepository } from './dev-signing-keys.repository';
import { configuredKeyRing, KeyRing } from './key-ring';
import { IDENTITY_ISSUER_CONFIG } from '../identity-issuer.config';

/**
 * The signing keys, loaded before the app starts (a factory: the development keys are read from
 * the database). Configured keys whenever given; production requires them, so the generated key
 * is reached only in development and tests.
 */
export const keyRingProvider: FactoryProvider<KeyRing> = {
  provide: KeyRing,
  inject: [IDENTITY_ISSUER_CONFIG, DevSigningKeysRepository, APP_LOGGER],
  useFactory: (config: IdentityIssuerConfig, stored: DevSigningKeysRepository, logger: Logger) =>
    config.IDENTITY_SIGNING_KEYS.length > 0
      ? configuredKeyRing(config.IDENTITY_SIGNING_KEYS, config.IDENTITY_ACTIVE_KID)
      : loadDevelopmentKeyRing(stored, config.IDENTITY_ISSUER_INTERNAL_KEY, logger),
};
