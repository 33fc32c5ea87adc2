import { Inject, Injectable } from '@nestjs/common';
import { Columns } from '@svc/persistence';
import { DataSource, EntityManager } from 'typeorm';
import type { SigningKeys } from '../schema.generated';
import { execute, queryRows, sql } from '../statements';

/** A development signing key as stored: its public JWK in clear, its private JWK sealed. */
export type StoredSigningKey = Omit<Columns<SigningKeys, 'kid' | 'public_jwk' | 'private_sealed'>, 'public_jwk'> & {
  public_jwk: Record<string, unknown>;
};

export interface DevSigningKeysTransaction {
  /** Newest first. */
  list(): Promise<StoredSigningKey[]>;
  add(key: StoredSigningKey): Promise<void>;
}

const LOCK = 'identity:development-signing-key';

/** Table `identity.signing_keys`: the keys generated when none are configured (development, tests). */
@Injectable()
export class DevSigningKeysRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Runs `work` in a transaction holding an advisory lock, so that replicas starting together on
   * an empty table create one key between them, not one each.
   */
  locked<T>(work: (keys: DevSigningKeysTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager: EntityManager) => {
      await execute(manager, sql('identity_dev_signing_keys_locked')`SELECT pg_advisory_xact_lock(hashtext($1))`, [LOCK]);
      return work({
        list: () =>
          queryRows<StoredSigningKey>(
            manager,
            sql('identity_dev_signing_keys_list')`
              SELECT kid, public_jwk, private_sealed FROM identity.signing_keys ORDER BY created_at DESC, kid`,
          ),
        add: async (key) => {
          await execute(
            manager,
            sql('identity_dev_signing_keys_add')`INSERT INTO identity.signing_keys (kid, public_jwk, private_sealed) VALUES ($1, $2, $3)`,
            [key.kid, JSON.stringify(key.public_jwk), key.private_sealed],
          );
        },
      });
    });
  }
}
