import { CreateAccountsAndKeys1763719200000 } from './migrations/1763719200000-CreateAccountsAndKeys';
import { AddWidgetIds1764000000000 } from './migrations/1764000000000-AddWidgetIds';

export * from './accounts.repository';
export * from './accounts.service';
export * from './api-key';

/** Schema `gateway`: accounts, plans, API keys. Owned by the gateway; the admin CLI writes it too. */
export const ACCOUNTS_SCHEMA = 'gateway';
export const ACCOUNTS_MIGRATIONS = [CreateAccountsAndKeys1763719200000, AddWidgetIds1764000000000];
