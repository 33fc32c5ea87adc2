import type { CreatedWebhookDto, EventKind, WebhookListDto } from '@svc/contracts';
import { useState } from 'react';
import { api } from '../api';
import { EVENT_KIND_LABELS, EVENT_KINDS } from '../event-kinds';
import { Link } from '../router';
import { CopyField, ErrorNote, Field, Page, RunButton, SubmitButton, Table, useAction, useFormAction, useLoad, when } from '../ui';

function RegisterForm({ onRegistered }: { onRegistered: (created: CreatedWebhookDto) => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [kinds, setKinds] = useState<Set<EventKind>>(new Set());
  const register = useFormAction(async () => {
    const created = await api<CreatedWebhookDto>('POST', '/webhooks', { url, events: all ? null : [...kinds] });
    setUrl('');
    await onRegistered(created);
  });
  const toggle = (kind: EventKind) =>
    setKinds((previous) => {
      const next = new Set(previous);
      if (next.has(kind)) next.delete(kind);
      else next.add(kind);
      return next;
    });
  return (
    <form onSubmit={register.onSubmit} className="stack">
      <h2>Register an endpoint</h2>
      <Field
        label="Endpoint URL"
        type="url"
        value={url}
        onChange={setUrl}
        required
        placeholder="https://example.com/webhooks/svc"
        size={50}
      />
      <fieldset>
        <legend>Events</legend>
        <label className="inline">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
          All events, including kinds added later
        </label>
        {!all &&
          EVENT_KINDS.map((kind) => (
            <label key={kind} className="inline">
              <input type="checkbox" checked={kinds.has(kind)} onChange={() => toggle(kind)} />
              <code>{kind}</code> — {EVENT_KIND_LABELS[kind]}
            </label>
          ))}
      </fieldset>
      <SubmitButton pending={register.pending}>Register</SubmitButton>
      <ErrorNote error={register.error} />
    </form>
  );
}

/** Webhook endpoints: register (the signing secret shown once), list, delete; each opens its deliveries. */
export default function Webhooks() {
  const list = useLoad(() => api<WebhookListDto>('GET', '/webhooks'), []);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const remove = useAction(async (id: number) => {
    await api('DELETE', `/webhooks/${id}`);
    await list.reload();
  });
  return (
    <Page title="Webhooks">
      <RegisterForm
        onRegistered={async (created) => {
          setSecret(created.secret);
          await list.reload();
        }}
      />
      {secret && (
        <CopyField label="Signing secret" value={secret} note="Shown once: copy it now. Receivers verify X-SVC-Signature with it." />
      )}
      <h2>Endpoints</h2>
      <ErrorNote error={list.error ?? remove.error} />
      <Table
        caption="Registered endpoints"
        rows={list.data?.webhooks}
        empty="No endpoints yet."
        columns={[
          ['URL', (hook) => <Link to={`/settings/webhooks/${hook.id}`}>{hook.url}</Link>],
          ['Events', (hook) => (hook.events ? hook.events.join(', ') : 'all')],
          ['Status', (hook) => hook.status],
          ['Created', (hook) => when(hook.created_at)],
          [
            '',
            (hook) => (
              <RunButton run={() => remove.run(hook.id)} pending={remove.pending} label={`Delete ${hook.url}`}>
                Delete
              </RunButton>
            ),
          ],
        ]}
      />
    </Page>
  );
}
