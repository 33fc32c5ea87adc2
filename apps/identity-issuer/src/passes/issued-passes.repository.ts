import { Inject, Injectable } from '@nestjs/common';
import { Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { IssuedPasses } from '../schema.generated';
import { execute, queryRows, sql } from '../statements';

export interface PassRecord {
  jti: string;
  accountId: string;
  svcId: number;
  kid: string;
  /** Unix seconds, as in the token. */
  issuedAt: number;
  expiresAt: number;
}

/** Table `identity.issued_passes`: which pass was issued for whom, when, under which key. */
@Injectable()
export class IssuedPassesRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Records the pass; returns its expiry as a contract timestamp (`…T10:04:05.000000+00:00`). */
  async record(pass: PassRecord): Promise<Columns<IssuedPasses, 'expires_at'>> {
    const [row] = await queryRows<Columns<IssuedPasses, 'expires_at'>>(
      this.db,
      sql('identity_issued_passes_record')`INSERT INTO identity.issued_passes (jti, account_id, svc_id, kid, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, to_timestamp($5), to_timestamp($6))
       RETURNING expires_at`,
      [pass.jti, pass.accountId, pass.svcId, pass.kid, pass.issuedAt, pass.expiresAt],
    );
    return row;
  }

  /** Removes up to `batch` records of passes that expired more than `days` ago (`PruneJob` calls it); returns how many. */
  async prune(days: number, batch: number): Promise<number> {
    return execute(
      this.db,
      sql('identity_issued_passes_prune')`DELETE FROM identity.issued_passes WHERE jti IN (
         SELECT jti FROM identity.issued_passes WHERE expires_at < now() - make_interval(days => $1) ORDER BY expires_at LIMIT $2)`,
      [days, batch],
    );
  }
}
