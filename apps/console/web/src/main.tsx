import { ComponentType, lazy, LazyExoticComponent, StrictMode, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, setCsrfToken, whenSignedOut } from './api';
import { Link, match, navigate, useLocation } from './router';
import { AccountSession, inAccount, SessionContext, SessionInfo } from './session';
import './styles.css';

// Each page is its own chunk: the first load carries the shell and the page asked for.
const SignIn = lazy(() => import('./pages/sign-in'));
const SetPassword = lazy(() => import('./pages/set-password'));
const ChooseAccount = lazy(() => import('./pages/choose-account'));
const Conversation = lazy(() => import('./pages/conversation'));
const WebhookEndpoint = lazy(() => import('./pages/webhook-endpoint'));

/** The navigation's pages: path, label, page and whether only owners have it. */
const NAV: [string, string, LazyExoticComponent<ComponentType>, ownerOnly?: boolean][] = [
  ['/inbox', 'Inbox', lazy(() => import('./pages/inbox'))],
  ['/customers', 'Customers', lazy(() => import('./pages/customers'))],
  ['/knowledge', 'Knowledge', lazy(() => import('./pages/knowledge'))],
  ['/bookings', 'Bookings', lazy(() => import('./pages/bookings'))],
  ['/analytics', 'Analytics', lazy(() => import('./pages/analytics'))],
  ['/settings/keys', 'API and MCP keys', lazy(() => import('./pages/keys')), true],
  ['/settings/webhooks', 'Webhooks', lazy(() => import('./pages/webhooks')), true],
  ['/settings/widget', 'Widget', lazy(() => import('./pages/widget'))],
  ['/settings/plan', 'Plan', lazy(() => import('./pages/plan')), true],
  ['/settings/members', 'Team', lazy(() => import('./pages/members'))],
];

/** The navigation an agent has: the owners' pages left out. */
const navFor = (session: AccountSession) => NAV.filter(([, , , ownerOnly]) => !ownerOnly || session.user.role === 'owner');

function SignedInPage({ path, session }: { path: string; session: AccountSession }) {
  const ownersOnly = NAV.some(([to, , , ownerOnly]) => ownerOnly && (path === to || path.startsWith(`${to}/`)));
  if (ownersOnly && session.user.role !== 'owner') {
    return (
      <section className="page">
        <h1>For owners only</h1>
        <p>Keys, webhooks and the plan are managed by the account&apos;s owners.</p>
      </section>
    );
  }
  const NavPage = NAV.find(([to]) => to === path)?.[2];
  if (NavPage) return <NavPage />;
  const conversation = match('/inbox/:id', path);
  if (conversation) return <Conversation id={conversation['id'] ?? ''} />;
  const endpoint = match('/settings/webhooks/:id', path);
  if (endpoint) return <WebhookEndpoint id={endpoint['id'] ?? ''} />;
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>
        <Link to="/inbox">Go to the inbox</Link>
      </p>
    </section>
  );
}

function Shell({ session, path, onSignOut }: { session: AccountSession; path: string; onSignOut: () => void }) {
  return (
    <SessionContext.Provider value={session}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">{session.account.name}</span>
        <nav aria-label="Main">
          <ul>
            {navFor(session).map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={path === to || path.startsWith(`${to}/`) ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">{session.user.email}</span>
        {session.accounts.length > 1 && <Link to="/choose-account">Switch account</Link>}
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          <SignedInPage path={path} session={session} />
        </Suspense>
      </main>
    </SessionContext.Provider>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

const PUBLIC = new Set(['/sign-in', '/set-password']);

function App() {
  const { path } = useLocation();
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);

  useEffect(() => {
    whenSignedOut(() => {
      setSession(null);
      if (!PUBLIC.has(location.pathname))
        navigate(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    });
  }, []);

  useEffect(() => {
    if (PUBLIC.has(path) || session) return;
    api<SessionInfo>('GET', '/session').then(
      (found) => {
        setCsrfToken(found.csrf_token);
        setSession(found);
        if (path === '/') navigate('/inbox', { replace: true });
      },
      () => setSession(null),
    );
  }, [path, session]);

  const signedIn = (found: SessionInfo, next: string) => {
    setCsrfToken(found.csrf_token);
    setSession(found);
    navigate(next.startsWith('/') && !next.startsWith('//') ? next : '/inbox', { replace: true });
  };
  const signOut = async () => {
    await api('POST', '/sign-out').catch(() => undefined);
    setSession(null);
    navigate('/sign-in', { replace: true });
  };

  if (path === '/sign-in' || path === '/set-password') {
    return (
      <main id="main" className="narrow">
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          {path === '/sign-in' ? <SignIn onSignedIn={signedIn} /> : <SetPassword onSignedIn={signedIn} />}
        </Suspense>
      </main>
    );
  }
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  if (session === null) return <Redirect to={`/sign-in?next=${encodeURIComponent(path)}`} />;
  if (!inAccount(session) || path === '/choose-account') {
    // Choosing keeps the page asked for; switching from the header goes to the inbox of the account chosen.
    const chosen = (found: SessionInfo) => {
      setSession(found);
      if (path === '/choose-account') navigate('/inbox', { replace: true });
    };
    return (
      <main id="main" className="narrow">
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          <ChooseAccount session={session} onChosen={chosen} onSignOut={signOut} />
        </Suspense>
      </main>
    );
  }
  return <Shell session={session} path={path === '/' ? '/inbox' : path} onSignOut={signOut} />;
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
