import { Injectable } from '@nestjs/common';
import { PruneJobFor } from '@svc/jobs';
import type { IdentityIssuerConfig } from '../identity-issuer.config';
import { IssuedPassesRepository } from './issued-passes.repository';

/** Records of expired passes are kept IDENTITY_PASS_RETENTION_DAYS, then pruned. */
@Injectable()
export class PassRetention extends PruneJobFor(IssuedPassesRepository, 'pass-retention', (config: IdentityIssuerConfig) => ({
  what: 'pass records',
  retentionDays: config.IDENTITY_PASS_RETENTION_DAYS,
  intervalMs: config.IDENTITY_PRUNE_INTERVAL_MS,
})) {}
