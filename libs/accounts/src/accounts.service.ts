import { isUuid, Plan } from '@svc/contracts';
import { AccountRow, AccountsRepository, ApiKeyRow } from './accounts.repository';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key';

export class AccountNotFoundError extends Error {}
export class KeyNotFoundError extends Error {}

/** A key as created: the secret is in `apiKey`, shown once and never stored. */
export interface CreatedKey {
  key: ApiKeyRow;
  apiKey: string;
}

/** Accounts, plans and keys: what operators do (the admin command line) and the gateway reads. */
export class AccountsService {
  constructor(private readonly repository: AccountsRepository) {}

  async createAccount(name: string, plan: Plan): Promise<{ account: AccountRow } & CreatedKey> {
    const account = await this.repository.insertAccount(name, plan);
    return { account, ...(await this.issueKey(account.id)) };
  }

  async getAccount(accountId: string): Promise<AccountRow> {
    const account = isUuid(accountId) ? await this.repository.findAccount(accountId) : undefined;
    if (!account) throw new AccountNotFoundError(`no account with id ${accountId}`);
    return account;
  }

  async getAccountWithWidget(accountId: string): Promise<AccountRow & { widget: string }> {
    const account = isUuid(accountId) ? await this.repository.findAccountWithWidget(accountId) : undefined;
    if (!account) throw new AccountNotFoundError(`no account with id ${accountId}`);
    return account;
  }

  async setPlan(accountId: string, plan: Plan): Promise<AccountRow> {
    const account = isUuid(accountId) ? await this.repository.updatePlan(accountId, plan) : undefined;
    if (!account) throw new AccountNotFoundError(`no account with id ${accountId}`);
    return account;
  }

  async createKey(accountId: string): Promise<CreatedKey> {
    return this.issueKey((await this.getAccount(accountId)).id);
  }

  /** Revokes a key; with `accountId`, only one of that account's keys (another's is "no key"). */
  async revokeKey(keyId: string, accountId?: string): Promise<ApiKeyRow> {
    const key = isUuid(keyId) ? await this.repository.revokeKey(keyId, accountId) : undefined;
    if (!key) throw new KeyNotFoundError(`no key with id ${keyId}`);
    return key;
  }

  listKeys(accountId: string): Promise<ApiKeyRow[]> {
    return this.repository.listActiveKeys(accountId);
  }

  private async issueKey(accountId: string): Promise<CreatedKey> {
    const apiKey = generateApiKey();
    const key = await this.repository.insertKey(accountId, displayPrefix(apiKey), hashApiKey(apiKey));
    return { key, apiKey };
  }
}
