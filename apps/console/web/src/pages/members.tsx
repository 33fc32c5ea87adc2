import type { InvitedMemberResponse } from '@svc/contracts';
import { useState } from 'react';
import { api } from '../api';
import { CopyField, ErrorNote, Field, Page, SubmitButton, Table, useFormAction, useLoad, when } from '../ui';

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
  const invite = useFormAction(async () => {
    setLink((await api<InvitedMemberResponse>('POST', '/members', { email })).sign_in_url);
    setEmail('');
    await list.reload();
  });
  return (
    <Page title="Team">
      <form onSubmit={invite.onSubmit} className="row">
        <Field label="Email" type="email" value={email} onChange={setEmail} required />
        <SubmitButton pending={invite.pending}>Invite</SubmitButton>
      </form>
      <ErrorNote error={invite.error ?? list.error} />
      {link && <CopyField label="Invitation link" value={link} note="Send it to the new member: it works once, for 24 hours." />}
      <Table
        caption="Team members"
        rows={list.data?.members ?? []}
        columns={[
          ['Email', (m) => m.email],
          ['Since', (m) => when(m.created_at)],
          ['State', (m) => (m.active ? 'active' : 'invited')],
        ]}
      />
    </Page>
  );
}
