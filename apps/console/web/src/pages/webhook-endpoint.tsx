import type { EventKind, WebhookEndpointDto } from '@svc/contracts';
import { useState } from 'react';
import { api, query } from '../api';
import { EVENT_KINDS } from '../event-kinds';
import { Link } from '../router';
import { anyOf, CopyField, ErrorNote, Page, RunButton, Select, SubmitButton, Table, useAction, useFormAction, useLoad, when } from '../ui';

/** The contract's delivery (`GET /webhooks/{id}/deliveries`). */
interface Delivery {
  id: number;
  event_id: number;
  event: EventKind;
  status: 'pending' | 'delivered' | 'failed';
  attempts: { at: string; status_code: number | null; error: string | null; duration_ms: number }[];
  next_attempt_at: string | null;
  created_at: string;
}

interface Deliveries {
  deliveries: Delivery[];
  next_after: number | null;
  more: boolean;
}

type Endpoint = Omit<WebhookEndpointDto, 'status'> & { status: string; disabled_reason?: string | null };

function TestEvent({ id }: { id: string }) {
  const [kind, setKind] = useState<EventKind>('message.received');
  const [result, setResult] = useState<
    { delivered: boolean; status_code: number | null; duration_ms: number; error: string | null } | undefined
  >(undefined);
  const send = useFormAction(async () => {
    setResult(await api('POST', `/webhooks/${id}/test`, { event: kind }));
  });
  return (
    <form className="row" onSubmit={send.onSubmit}>
      <Select label="Event kind" value={kind} onChange={setKind} options={EVENT_KINDS.map((k) => [k, k] as const)} />
      <SubmitButton pending={send.pending}>Send test event</SubmitButton>
      <ErrorNote error={send.error} />
      {result && (
        <p role="status">
          {result.delivered ? 'Delivered' : 'Not delivered'}: {result.status_code ?? result.error ?? 'no answer'} in {result.duration_ms} ms
        </p>
      )}
    </form>
  );
}

/** One endpoint: its deliveries with every attempt (status code, error, duration), resend, a test event of any kind, secret rotation. */
export default function WebhookEndpoint({ id }: { id: string }) {
  const endpoint = useLoad(() => api<Endpoint>('GET', `/webhooks/${encodeURIComponent(id)}`), [id]);
  const [status, setStatus] = useState('');
  const deliveries = useLoad(
    () => api<Deliveries>('GET', `/webhooks/${encodeURIComponent(id)}/deliveries${query({ status, limit: 200 })}`),
    [id, status],
  );
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const resend = useAction(async (delivery: Delivery) => {
    await api('POST', `/webhooks/${id}/deliveries/${delivery.id}/resend`, {});
    await deliveries.reload();
  });
  const rotate = useAction(async () => {
    setSecret((await api<{ secret: string }>('POST', `/webhooks/${id}/rotate-secret`, {})).secret);
  });
  const enable = useAction(async () => {
    await api('PATCH', `/webhooks/${id}`, { status: 'enabled' });
    await endpoint.reload();
  });
  return (
    <Page title="Webhook endpoint" actions={<Link to="/settings/webhooks">All endpoints</Link>}>
      <ErrorNote error={endpoint.error} />
      {endpoint.data && (
        <dl>
          <dt>URL</dt>
          <dd>{endpoint.data.url}</dd>
          <dt>Events</dt>
          <dd>{endpoint.data.events ? endpoint.data.events.join(', ') : 'all'}</dd>
          <dt>Status</dt>
          <dd>
            {endpoint.data.status}
            {endpoint.data.disabled_reason ? ` (${endpoint.data.disabled_reason})` : ''}{' '}
            {endpoint.data.status === 'disabled' && (
              <button type="button" onClick={() => void enable.run()}>
                Enable
              </button>
            )}
          </dd>
        </dl>
      )}
      <h2>Send a test event</h2>
      <TestEvent id={id} />
      <h2>Signing secret</h2>
      <RunButton run={rotate.run} pending={rotate.pending}>
        Rotate secret
      </RunButton>
      <ErrorNote error={rotate.error ?? enable.error} />
      {secret && (
        <CopyField
          label="New signing secret"
          value={secret}
          note="Shown once. For 24 hours deliveries verify with the old secret or this one."
        />
      )}
      <h2>Deliveries</h2>
      <div className="row">
        <Select label="Status" value={status} onChange={setStatus} options={anyOf(['pending', 'delivered', 'failed'])} />
        <button type="button" onClick={() => void deliveries.reload()}>
          Refresh
        </button>
      </div>
      <ErrorNote error={deliveries.error ?? resend.error} />
      <Table
        className="deliveries"
        caption="Deliveries, newest last"
        rows={deliveries.data?.deliveries}
        empty="No deliveries."
        columns={[
          [
            'Event',
            (d) => (
              <>
                <code>{d.event}</code> #{d.event_id}
              </>
            ),
          ],
          ['Status', (d) => d.status],
          [
            'Attempts',
            (d) => (
              <ol className="attempts">
                {d.attempts.map((a, i) => (
                  <li key={i}>
                    {when(a.at)}: {a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? 'no answer')}, {a.duration_ms} ms
                  </li>
                ))}
              </ol>
            ),
          ],
          ['Next attempt', (d) => when(d.next_attempt_at)],
          [
            '',
            (d) => (
              <RunButton run={() => resend.run(d)} pending={resend.pending} label={`Resend delivery ${d.id}`}>
                Resend
              </RunButton>
            ),
          ],
        ]}
      />
    </Page>
  );
}
