import type { InvitedMemberResponse, Role } from '@svc/contracts';
import { useState } from 'react';
import { api } from '../api';
import { useSession } from '../session';
import { CopyField, ErrorNote, Field, Page, RunButton, Select, SubmitButton, Table, useAction, useFormAction, useLoad, when } from '../ui';

interface MemberView {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  active: boolean;
}

const ROLE_OPTIONS = [
  ['agent', 'Agent: conversations, customers, bookings'],
  ['owner', 'Owner: also keys, webhooks, plan and the team'],
] as const;

/** The account's team members and their roles; owners invite (a one-time set-password link, 24 h, to pass on) and remove. */
export default function Members() {
  const session = useSession();
  const owner = session.user.role === 'owner';
  const list = useLoad(() => api<{ members: MemberView[] }>('GET', '/members'), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const [link, setLink] = useState<{ email: string; url: string } | undefined>(undefined);
  const invite = useFormAction(async () => {
    const invited = await api<InvitedMemberResponse>('POST', '/members', { email, role });
    setLink({ email: invited.user.email, url: invited.sign_in_url });
    setEmail('');
    await list.reload();
  });
  const resend = useAction(async (member: MemberView) => {
    const invited = await api<InvitedMemberResponse>('POST', '/members', { email: member.email, role: member.role });
    setLink({ email: invited.user.email, url: invited.sign_in_url });
  });
  const remove = useAction(async (member: MemberView) => {
    await api('DELETE', `/members/${encodeURIComponent(member.id)}`);
    await list.reload();
  });
  // The account's last active owner cannot be removed (the backend refuses it too): no Remove button for them.
  const activeOwners = (list.data?.members ?? []).filter((m) => m.role === 'owner' && m.active).length;
  const removable = (m: MemberView) => !(m.role === 'owner' && m.active && activeOwners <= 1);
  const actions = (m: MemberView) => (
    <>
      {!m.active && (
        <RunButton run={() => resend.run(m)} pending={resend.pending} label={`New link for ${m.email}`}>
          New link
        </RunButton>
      )}
      {removable(m) && (
        <RunButton run={() => remove.run(m)} pending={remove.pending} label={`Remove ${m.email}`}>
          Remove
        </RunButton>
      )}
    </>
  );
  return (
    <Page title="Team">
      {owner ? (
        <form onSubmit={invite.onSubmit} className="row">
          <Field label="Email" type="email" value={email} onChange={setEmail} required />
          <Select label="Role" value={role} onChange={setRole} options={ROLE_OPTIONS} />
          <SubmitButton pending={invite.pending}>Invite</SubmitButton>
        </form>
      ) : (
        <p>Only an owner invites or removes members.</p>
      )}
      <ErrorNote error={invite.error ?? resend.error ?? remove.error ?? list.error} />
      {link && (
        <CopyField
          label="Invitation link"
          value={link.url}
          note={`Send it to ${link.email}: it works once, for 24 hours, and earlier links stay valid until one is used.`}
        />
      )}
      <Table
        caption="Team members"
        rows={list.data?.members ?? []}
        columns={[
          ['Email', (m) => m.email],
          ['Role', (m) => m.role],
          ['Since', (m) => when(m.created_at)],
          ['State', (m) => (m.active ? 'active' : 'invited')],
          ...(owner ? [['', actions] as const] : []),
        ]}
      />
    </Page>
  );
}
