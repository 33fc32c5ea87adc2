import { useState } from 'react';
import { api } from '../api';
import { CopyField, ErrorNote, Page, useAction, useLoad, when } from '../ui';

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
        A key authenticates the REST API (<code>/api/v1/</code>) and the MCP server (<code>/mcp</code>) as <code>Authorization: Bearer …</code>. Keep several
        to rotate; a revoked key is refused within 5 seconds.
      </p>
      <button type="button" onClick={() => void create.run()} disabled={create.pending}>
        Create key
      </button>
      <ErrorNote error={create.error ?? revoke.error ?? keys.error} />
      {created && <CopyField label="New key" value={created} note="Shown once: copy it now. Only its prefix is kept." />}
      <table>
        <caption>Active keys</caption>
        <thead>
          <tr>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.keys.map((key) => (
            <tr key={key.id}>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{when(key.created_at)}</td>
              <td>
                <button type="button" onClick={() => void revoke.run(key)} disabled={revoke.pending} aria-label={`Revoke ${key.prefix}`}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
