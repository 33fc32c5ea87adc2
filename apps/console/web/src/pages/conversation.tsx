import type { EventConsent, EventContact, InboxConversationResponse, InboxMessage } from '@svc/contracts';
import { useCallback, useState } from 'react';
import { api } from '../api';
import { useInboxChanges } from '../live';
import { customerName } from '../names';
import { Link } from '../router';
import { ErrorNote, Field, Page, SubmitButton, useAction, useFormAction, useLoad, when } from '../ui';
import { citedAfter, TeachButton } from './teach';

/** A consent as contacts-api lists it for the console: with the id Withdraw names. */
type Consent = EventConsent & { id: number };

const AUTHOR: Record<InboxMessage['author'], string> = { customer: 'Customer', assistant: 'Assistant', team: 'Team', system: 'Notice' };

/** The thread: a list inside the live region (a role on the <ol> itself would leave its <li>s outside any list). */
function Messages({ messages, lang }: { messages: InboxMessage[]; lang: string }) {
  return (
    <div role="log" aria-label="Messages">
      <ol className="messages">
        {messages.map((m, i) => (
          <li key={m.id} className={`message ${m.author}`}>
            <span className="author">{AUTHOR[m.author]}</span> <time dateTime={m.at}>{when(m.at)}</time>
            <p id={`message-${m.id}`}>{m.text}</p>
            {m.cited_piece && <p className="note">Cites “{m.cited_piece.heading}”</p>}
            {m.author === 'customer' && (
              <TeachButton question={m.text} questionId={`message-${m.id}`} lang={lang} cited={citedAfter(messages, i)} />
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

function ReplyBox({ id, onSent }: { id: string; onSent: () => Promise<void> }) {
  const [text, setText] = useState('');
  const send = useFormAction(async () => {
    if (!text.trim()) return;
    await api('POST', `/conversations/${id}/replies`, { text });
    setText('');
    await onSent();
  });
  return (
    <form onSubmit={send.onSubmit} className="stack reply">
      <label>
        Reply
        <textarea rows={3} value={text} onChange={(e) => setText(e.target.value)} maxLength={4000} />
      </label>
      <button type="submit" disabled={send.pending || !text.trim()}>
        Send reply
      </button>
      <ErrorNote error={send.error} />
    </form>
  );
}

/** WhatsApp after the 24-hour window: only an approved template, with consent and a phone (the chat checks and says why not). */
function TemplateForm({ id }: { id: string }) {
  const [template, setTemplate] = useState('');
  const [lang, setLang] = useState('en');
  const [sent, setSent] = useState(false);
  const send = useFormAction(async () => {
    setSent(false);
    await api('POST', `/conversations/${id}/whatsapp-template`, { template, lang });
    setSent(true);
  });
  return (
    <form className="stack" onSubmit={send.onSubmit}>
      <h2>WhatsApp template</h2>
      <Field label="Template name" value={template} onChange={setTemplate} required />
      <Field label="Template language" value={lang} onChange={setLang} required />
      <SubmitButton pending={send.pending}>Send template</SubmitButton>
      {sent && <p role="status">Template sent.</p>}
      <ErrorNote error={send.error} />
    </form>
  );
}

function CustomerPanel({ contact, conversationId }: { contact: EventContact | null; conversationId: number }) {
  const svcId = contact?.svc_id;
  const load = useCallback(
    () => (svcId ? api<{ consents: Consent[] }>('GET', `/customers/${svcId}/consents`) : Promise.resolve({ consents: [] })),
    [svcId],
  );
  const consents = useLoad(load, [load]);
  const withdraw = useAction(async (consent: Consent) => {
    await api('POST', `/customers/${svcId}/consents/${consent.id}/withdraw`, { conversation_id: conversationId });
    await consents.reload();
  });
  return (
    <aside className="panel" aria-label="Customer">
      <h2>Customer</h2>
      {!contact && <p>Not known yet (no message, or erased).</p>}
      {contact && (
        <dl>
          <dt>Name</dt>
          <dd>{contact.name || '—'}</dd>
          <dt>Email</dt>
          <dd>
            {contact.email ?? '—'} {contact.email && (contact.email_confirmed ? '(confirmed)' : '(unconfirmed)')}
          </dd>
          <dt>Phone</dt>
          <dd>
            {contact.phone ?? '—'} {contact.phone && (contact.phone_confirmed ? '(confirmed)' : '(unconfirmed)')}
          </dd>
          <dt>Reference</dt>
          <dd>{contact.ref ?? 'Met in the chat'}</dd>
        </dl>
      )}
      <h3>Consents</h3>
      <ErrorNote error={consents.error ?? withdraw.error} />
      {consents.data && consents.data.consents.length === 0 && <p>None.</p>}
      <ul className="consents">
        {consents.data?.consents.map((consent) => (
          <li key={consent.id}>
            <strong>{consent.purpose}</strong> —{' '}
            {consent.active
              ? 'active'
              : consent.withdrawn_at
                ? `withdrawn ${when(consent.withdrawn_at)} by ${consent.withdrawn_by ?? '—'}`
                : 'not granted'}
            <p className="note">
              “{consent.text}” ({consent.source}, {when(consent.given_at)})
            </p>
            {consent.active && (
              <button
                type="button"
                onClick={() => void withdraw.run(consent)}
                disabled={withdraw.pending}
                aria-describedby={`consent-${consent.id}`}
              >
                Withdraw
              </button>
            )}
            <span id={`consent-${consent.id}`} hidden>
              {consent.purpose}
            </span>
          </li>
        ))}
      </ul>
    </aside>
  );
}

export default function Conversation({ id }: { id: string }) {
  const load = useCallback(() => api<InboxConversationResponse>('GET', `/conversations/${encodeURIComponent(id)}`), [id]);
  const { data, error, reload } = useLoad(load, [load]);
  useInboxChanges((changed) => {
    if (String(changed) === id) void reload();
  });
  const title = data ? `Conversation with ${customerName(data.conversation.contact)}` : 'Conversation';
  return (
    <Page title={title} actions={<Link to="/inbox">Back to the inbox</Link>}>
      <ErrorNote error={error} />
      {data && (
        <div className="conversation">
          <div className="thread">
            <p className="note">
              {data.conversation.channel === 'whatsapp' ? 'WhatsApp' : 'Web chat'} · started {when(data.conversation.created_at)}
              {data.conversation.needs_human && <span className="badge">Needs a person</span>}
            </p>
            <Messages messages={data.messages} lang={data.conversation.lang} />
            <ReplyBox id={id} onSent={reload} />
            {data.conversation.channel === 'whatsapp' && <TemplateForm id={id} />}
          </div>
          <CustomerPanel contact={data.conversation.contact} conversationId={data.conversation.id} />
        </div>
      )}
    </Page>
  );
}
