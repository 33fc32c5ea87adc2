import { Inject, Injectable } from '@nestjs/common';
import { Plan } from '@svc/contracts';
import { Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { Accounts, ApiKeys } from './schema.generated';
import { queryOne, queryRows, sql } from './statements';

/** An account; its plan is held to the contract's values. */
export type AccountRow = Columns<Accounts, 'id' | 'name' | 'plan'> & { plan: Plan };

/** KEY_COLUMNS. */
export type ApiKeyRow = Columns<ApiKeys, 'id' | 'account_id' | 'prefix' | 'created_at' | 'revoked_at'>;

type Key = Columns<ApiKeys, 'id' | 'prefix' | 'created_at'>;
type Account = Columns<Accounts, 'id' | 'name' | 'widget_id'>;

/** An active key with its account, as the gateway needs it on every call (PRINCIPAL_QUERY's aliases). */
export type PrincipalRow = Columns<ApiKeys, 'key_hash'> & {
  key_id: Key['id'];
  key_prefix: Key['prefix'];
  key_created_at: Key['created_at'];
  account_id: Account['id'];
  account_name: Account['name'];
  account_plan: Plan;
  account_widget: Account['widget_id'];
};

const KEY_COLUMNS = 'id, account_id, prefix, created_at, revoked_at';

/** The SQL of schema `gateway`, and nothing else. */
const PRINCIPAL_QUERY = `SELECT k.id AS key_id, k.key_hash, k.prefix AS key_prefix, k.created_at AS key_created_at,
         a.id AS account_id, a.name AS account_name, a.plan AS account_plan, a.widget_id AS account_widget
    FROM gateway.api_keys k JOIN gateway.accounts a ON a.id = k.account_id`;

@Injectable()
export class AccountsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async insertAccount(name: string, plan: Plan): Promise<AccountRow> {
    const [row] = await queryRows<AccountRow>(
      this.db,
      sql('accounts_accounts_insert_account')`INSERT INTO gateway.accounts (name, plan) VALUES ($1, $2) RETURNING id, name, plan`,
      [name, plan],
    );
    return row;
  }

  async updatePlan(accountId: string, plan: Plan): Promise<AccountRow | undefined> {
    return queryOne<AccountRow>(
      this.db,
      sql('accounts_accounts_update_plan')`
        UPDATE gateway.accounts SET plan = $2, updated_at = now() WHERE id = $1 RETURNING id, name, plan`,
      [accountId, plan],
    );
  }

  async findAccount(accountId: string): Promise<AccountRow | undefined> {
    return queryOne<AccountRow>(this.db, sql('accounts_accounts_find_account')`SELECT id, name, plan FROM gateway.accounts WHERE id = $1`, [
      accountId,
    ]);
  }

  /** The account whose public widget id this is (the chat resolves its visitors' widget with it). */
  async findAccountByWidget(widgetId: string): Promise<AccountRow | undefined> {
    return queryOne<AccountRow>(
      this.db,
      sql('accounts_accounts_find_account_by_widget')`SELECT id, name, plan FROM gateway.accounts WHERE widget_id = $1`,
      [widgetId],
    );
  }

  async insertKey(accountId: string, prefix: string, hash: Buffer): Promise<ApiKeyRow> {
    const [row] = await queryRows<ApiKeyRow>(
      this.db,
      sql('accounts_accounts_insert_key')`
        INSERT INTO gateway.api_keys (account_id, prefix, key_hash) VALUES ($1, $2, $3) RETURNING ${KEY_COLUMNS}`,
      [accountId, prefix, hash],
    );
    return row;
  }

  /** Revokes a key; with `accountId`, only a key of that account (another's is left alone: undefined). */
  async revokeKey(keyId: string, accountId?: string): Promise<ApiKeyRow | undefined> {
    return queryOne<ApiKeyRow>(
      this.db,
      sql('accounts_accounts_revoke_key')`
        UPDATE gateway.api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) RETURNING ${KEY_COLUMNS}`,
      [keyId, accountId ?? null],
    );
  }

  /** The account's keys that are not revoked, oldest first (the console's key list). */
  async listActiveKeys(accountId: string): Promise<ApiKeyRow[]> {
    return queryRows<ApiKeyRow>(
      this.db,
      sql('accounts_accounts_list_active_keys')`
        SELECT ${KEY_COLUMNS} FROM gateway.api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
      [accountId],
    );
  }

  /** The account and its public widget id (the console's settings). */
  async findAccountWithWidget(accountId: string): Promise<(AccountRow & { widget: Account['widget_id'] }) | undefined> {
    return queryOne<AccountRow & { widget: Account['widget_id'] }>(
      this.db,
      sql('accounts_accounts_find_account_with_widget')`SELECT id, name, plan, widget_id AS widget FROM gateway.accounts WHERE id = $1`,
      [accountId],
    );
  }

  async findPrincipal(hash: Buffer): Promise<PrincipalRow | undefined> {
    return queryOne<PrincipalRow>(
      this.db,
      sql('accounts_accounts_find_principal')`${PRINCIPAL_QUERY} WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
  }

  /** The active key with this id and its account (the gateway's internal whoami, for mcp-server). */
  async findPrincipalByKeyId(keyId: string): Promise<PrincipalRow | undefined> {
    return queryOne<PrincipalRow>(
      this.db,
      sql('accounts_accounts_find_principal_by_key_id')`${PRINCIPAL_QUERY} WHERE k.id = $1 AND k.revoked_at IS NULL`,
      [keyId],
    );
  }
}
