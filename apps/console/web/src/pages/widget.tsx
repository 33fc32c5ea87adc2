import type { WidgetSettingsResponse } from '@svc/contracts';
import { useEffect, useState } from 'react';
import { api } from '../api';
import { useSession } from '../session';
import { CopyField, ErrorNote, Page, SubmitButton, useFormAction, useLoad } from '../ui';

/** The embed snippet with the account's widget id, and the pages (origins) allowed to use it. */
export default function Widget() {
  const session = useSession();
  const settings = useLoad(() => api<WidgetSettingsResponse>('GET', '/widget-settings'), []);
  const [origins, setOrigins] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (settings.data) setOrigins(settings.data.allowed_origins.join('\n'));
  }, [settings.data]);
  const save = useFormAction(async () => {
    setSaved(false);
    const list = origins
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean);
    await api('PUT', '/widget-settings', { origins: list });
    await settings.reload();
    setSaved(true);
  });
  const snippet =
    `<script>window.SvcChat = { widget: "${session.account.widget}" };</script>\n` +
    `<script src="${session.app_url}/chat/widget.js" async></script>`;
  return (
    <Page title="Widget">
      <p>
        Put this on the pages where the chat should appear. To greet a signed-in customer by name, add <code>identity: "&lt;pass&gt;"</code>{' '}
        with a pass from <code>POST /api/v1/contacts/{'{ref}'}/identity</code>, made for that visitor only.
      </p>
      <p>
        Widget id: <code>{session.account.widget}</code>
      </p>
      <CopyField label="Embed snippet" value={snippet} />
      {session.user.role === 'owner' ? (
        <form onSubmit={save.onSubmit} className="stack">
          <h2>Allowed origins</h2>
          <label>
            Allowed origins
            <textarea rows={4} value={origins} onChange={(e) => setOrigins(e.target.value)} placeholder="https://shop.example" />
          </label>
          <p className="note">One per line, such as https://shop.example. Empty: any page may use the widget.</p>
          <SubmitButton pending={save.pending}>Save origins</SubmitButton>
          {saved && <p role="status">Saved.</p>}
          <ErrorNote error={save.error ?? settings.error} />
        </form>
      ) : (
        <>
          <h2>Allowed origins</h2>
          <p>{settings.data?.allowed_origins.join(', ') || 'Any page.'} Only an owner changes them.</p>
          <ErrorNote error={settings.error} />
        </>
      )}
    </Page>
  );
}
