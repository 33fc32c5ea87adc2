import { useState } from 'react';
import { api } from '../api';
import { useLocation } from '../router';
import { SessionInfo } from '../session';
import { ErrorNote, Field, Page, SubmitButton, useFormAction } from '../ui';

/** The one-time link of an invitation (`/set-password?token=…`, 24 h): choose a password and be signed in. */
export default function SetPassword({ onSignedIn }: { onSignedIn: (session: SessionInfo, next: string) => void }) {
  const { query } = useLocation();
  const [password, setPassword] = useState('');
  const submit = useFormAction(async () => {
    await api('POST', '/set-password', { token: query.get('token') ?? '', password });
    onSignedIn(await api<SessionInfo>('GET', '/session'), '/inbox');
  });
  return (
    <Page title="Set your password">
      <form onSubmit={submit.onSubmit} className="stack">
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={10}
          maxLength={200}
          value={password}
          onChange={setPassword}
        />
        <p className="note">
          At least 10 characters. Already have a console password (for another account)? Enter that one to accept the invitation.
        </p>
        <SubmitButton pending={submit.pending}>Set password</SubmitButton>
        <ErrorNote error={submit.error} />
      </form>
    </Page>
  );
}
