import { useState } from 'react';
import { api } from '../api';
import { CopyField, ErrorNote, Page, RunButton, Table, useAction, useLoad, when } from '../ui';

interface Key {
  id: string;
  prefix: string;
  created_at: string;
}

/** API keys (the same keys authenticate the REST API and the MCP server): create (shown once), list by prefix, revoke. */
export default function Keys() {
  const keys = useLoad(() => api<{ keys: Key[] }>('GET', '/keys'), []);
  const [created, setCreated] = useState<string | undefined>(undefined);
  const create = useAction(async () => {
    const result = await api<{ key: Key; api_key: string }>('POST', '/keys', {});
    setCreated(result.api_key);
    await keys.reload();
  });
  const revoke = useAction(async (key: Key) => {
    await api('POST', `/keys/${key.id}/revoke`, {});
    await keys.reload();
  });
  return (
    <Page title="API and MCP keys">
      <p>
        A key authenticates the REST API (<code>/api/v1/</code>) and the MCP server (<code>/mcp</code>) as{' '}
        <code>Authorization: Bearer …</code>. Keep several to rotate; a revoked key is refused within 5 seconds.
      </p>
      <RunButton run={create.run} pending={create.pending}>
        Create key
      </RunButton>
      <ErrorNote error={create.error ?? revoke.error ?? keys.error} />
      {created && <CopyField label="New key" value={created} note="Shown once: copy it now. Only its prefix is kept." />}
      <Table
        caption="Active keys"
        rows={keys.data?.keys ?? []}
        columns={[
          ['Prefix', (key) => <code>{key.prefix}…</code>],
          ['Created', (key) => when(key.created_at)],
          [
            '',
            (key) => (
              <RunButton run={() => revoke.run(key)} pending={revoke.pending} label={`Revoke ${key.prefix}`}>
                Revoke
              </RunButton>
            ),
          ],
        ]}
      />
    </Page>
  );
}
