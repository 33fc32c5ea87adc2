import type { InvitedMemberResponse } from '@svc/contracts';
import { FormEvent, useState } from 'react';
import { api } from '../api';
import { CopyField, ErrorNote, Page, useAction, useLoad, when } from '../ui';

interface MemberView {
  id: string;
  email: string;
  created_at: string;
  active: boolean;
}

/** The account's team members; Invite makes a one-time set-password link (24 h) to pass on. */
export default function Members() {
  const list = useLoad(() => api<{ members: MemberView[] }>('GET', '/members'), []);
  const [email, setEmail] = useState('');
  const [link, setLink] = useState<string | undefined>(undefined);
  const invite = useAction(async () => {
    setLink((await api<InvitedMemberResponse>('POST', '/members', { email })).sign_in_url);
    setEmail('');
    await list.reload();
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void invite.run();
  };
  return (
    <Page title="Team">
      <form onSubmit={onSubmit} className="row">
        <label>
          Email
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </label>
        <button type="submit" disabled={invite.pending}>
          Invite
        </button>
      </form>
      <ErrorNote error={invite.error ?? list.error} />
      {link && <CopyField label="Invitation link" value={link} note="Send it to the new member: it works once, for 24 hours." />}
      <table>
        <caption>Team members</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Since</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.members.map((m) => (
            <tr key={m.id}>
              <td>{m.email}</td>
              <td>{when(m.created_at)}</td>
              <td>{m.active ? 'active' : 'invited'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
