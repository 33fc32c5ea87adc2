import type { InboxConversationsPage } from '@svc/contracts';
import { useCallback, useEffect, useRef } from 'react';
import { api, query } from '../api';
import { useInboxChanges } from '../live';
import { customerName } from '../names';
import { Link, navigate, useLocation } from '../router';
import { ErrorNote, Page, useLoad, when } from '../ui';

/** Conversations, newest activity first, live; "Needs a person" narrows to those waiting for the team. */
export default function Inbox() {
  const { query: params } = useLocation();
  const needsHuman = params.get('needs_human') === 'true';
  const load = useCallback(
    () => api<InboxConversationsPage>('GET', `/conversations${query({ needs_human: needsHuman ? 'true' : undefined, limit: 100 })}`),
    [needsHuman],
  );
  const { data, error, reload } = useLoad(load, [load]);
  // Many changes in a burst → one reload.
  const pending = useRef<number | undefined>(undefined);
  useInboxChanges(() => {
    window.clearTimeout(pending.current);
    pending.current = window.setTimeout(() => void reload(), 100);
  });
  useEffect(() => () => window.clearTimeout(pending.current), []);

  return (
    <Page title="Inbox">
      <label className="inline">
        <input
          type="checkbox"
          checked={needsHuman}
          onChange={(e) => navigate(e.target.checked ? '/inbox?needs_human=true' : '/inbox', { replace: true })}
        />
        Needs a person
      </label>
      <ErrorNote error={error} />
      {data && data.conversations.length === 0 && <p>{needsHuman ? 'Nobody is waiting for a person.' : 'No conversations yet.'}</p>}
      {data && data.conversations.length > 0 && (
        <ul className="conversations" aria-label="Conversations">
          {data.conversations.map((c) => (
            <li key={c.id}>
              <Link to={`/inbox/${c.id}`}>
                <span className="who">{customerName(c.contact)}</span>
                {c.needs_human && <span className="badge">Needs a person</span>}
                <span className="channel">{c.channel === 'whatsapp' ? 'WhatsApp' : 'Web'}</span>
                <span className="last">
                  {c.last_message
                    ? `${c.last_message.author === 'customer' ? '' : `${c.last_message.author}: `}${c.last_message.text}`
                    : 'No messages yet'}
                </span>
                <time dateTime={c.updated_at}>{when(c.updated_at)}</time>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
