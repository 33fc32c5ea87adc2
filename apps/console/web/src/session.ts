import { createContext, useContext } from 'react';
import type { Plan, Role } from '@svc/contracts';

/**
 * `GET /console/v1/session`: who is signed in, the account the session acts in (null until chosen),
 * their accounts, the CSRF token for writes.
 */
export interface SessionInfo {
  user: { id: string; email: string; role: Role | null };
  account: { id: string; name: string; plan: Plan; widget: string } | null;
  accounts: { id: string; name: string; role: Role }[];
  csrf_token: string;
  app_url: string;
}

/** A session acting in an account: what the signed-in pages see. */
export type AccountSession = SessionInfo & { user: { role: Role }; account: NonNullable<SessionInfo['account']> };

export const inAccount = (session: SessionInfo): session is AccountSession => session.account !== null && session.user.role !== null;

export const SessionContext = createContext<AccountSession | null>(null);

export function useSession(): AccountSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
