import { FormEvent, useState } from 'react';
import { api } from '../api';
import { useLocation } from '../router';
import { SessionInfo } from '../session';
import { ErrorNote, Page, useAction } from '../ui';

export default function SignIn({ onSignedIn }: { onSignedIn: (session: SessionInfo, next: string) => void }) {
  const { query } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useAction(async () => {
    await api('POST', '/sign-in', { email, password });
    onSignedIn(await api<SessionInfo>('GET', '/session'), query.get('next') ?? '/inbox');
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit.run();
  };
  return (
    <Page title="Sign in">
      <form onSubmit={onSubmit} className="stack">
        <label>
          Email
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" disabled={submit.pending}>
          Sign in
        </button>
        <ErrorNote error={submit.error} />
      </form>
    </Page>
  );
}
