import { useState } from 'react';
import { api } from '../api';
import { useLocation } from '../router';
import { SessionInfo } from '../session';
import { ErrorNote, Field, Page, SubmitButton, useFormAction } from '../ui';

export default function SignIn({ onSignedIn }: { onSignedIn: (session: SessionInfo, next: string) => void }) {
  const { query } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useFormAction(async () => {
    await api('POST', '/sign-in', { email, password });
    onSignedIn(await api<SessionInfo>('GET', '/session'), query.get('next') ?? '/inbox');
  });
  return (
    <Page title="Sign in">
      <form onSubmit={submit.onSubmit} className="stack">
        <Field label="Email" type="email" name="email" autoComplete="username" required value={email} onChange={setEmail} />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
        />
        <SubmitButton pending={submit.pending}>Sign in</SubmitButton>
        <ErrorNote error={submit.error} />
      </form>
    </Page>
  );
}
