import { createContext, useContext } from 'react';
import type { Plan, Role } from '@svc/contracts';

/** `GET /console/v1/session`: who is signed in, their account and the CSRF token for writes. */
export interface SessionInfo {
  user: { id: string; email: string; role: Role };
  account: { id: string; name: string; plan: Plan; widget: string };
  csrf_token: string;
  app_url: string;
}

export const SessionContext = createContext<SessionInfo | null>(null);

export function useSession(): SessionInfo {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
