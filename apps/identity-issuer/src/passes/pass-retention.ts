import { Inject, Injectable } from '@nestjs/common';
import { PruneJob } from '@svc/jobs';
import { APP_CONFIG, APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import type { IdentityIssuerConfig } from '../identity-issuer.config';
import { IssuedPassesRepository } from './issued-passes.repository';

/** Records of expired passes are kept IDENTITY_PASS_RETENTION_DAYS, then pruned. */
@Injectable()
export class PassRetention extends PruneJob {
  constructor(passes: IssuedPassesRepository, @Inject(APP_CONFIG) config: IdentityIssuerConfig, @Inject(APP_LOGGER) logger: Logger) {
    super(
      passes,
      { what: 'pass records', retentionDays: config.IDENTITY_PASS_RETENTION_DAYS, intervalMs: config.IDENTITY_PRUNE_INTERVAL_MS },
      logger.child({ component: 'pass-retention' }),
    );
  }
}
