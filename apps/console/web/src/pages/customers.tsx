import type { ContactListResponseDto, ContactResponseDto } from '@svc/contracts';
import { useState } from 'react';
import { api, ApiFailure } from '../api';
import { ErrorNote, Field, Page, Select, SubmitButton, Table, useFormAction, when } from '../ui';

type By = 'email' | 'phone' | 'ref';

/** Find customers by email, phone or the business's own ref (the API's lookups). */
export default function Customers() {
  const [by, setBy] = useState<By>('email');
  const [value, setValue] = useState('');
  const [found, setFound] = useState<ContactResponseDto[] | undefined>(undefined);
  const find = useFormAction(async () => {
    setFound(undefined);
    if (by === 'ref') {
      try {
        setFound([await api<ContactResponseDto>('GET', `/contacts/${encodeURIComponent(value)}`)]);
      } catch (err) {
        if (err instanceof ApiFailure && err.status === 404) setFound([]);
        else throw err;
      }
      return;
    }
    setFound((await api<ContactListResponseDto>('GET', `/contacts?${by}=${encodeURIComponent(value)}`)).contacts);
  });
  return (
    <Page title="Customers">
      <form onSubmit={find.onSubmit} className="row">
        <Select
          label="Find by"
          value={by}
          onChange={setBy}
          options={[
            ['email', 'Email'],
            ['phone', 'Phone'],
            ['ref', 'Reference'],
          ]}
        />
        <Field label="Search" value={value} onChange={setValue} required placeholder={by === 'phone' ? '+447700900123' : ''} />
        <SubmitButton pending={find.pending}>Find</SubmitButton>
      </form>
      <ErrorNote error={find.error} />
      <Table
        caption="Customers found"
        rows={found}
        empty="No customer found."
        rowKey={(c) => c.svc_id}
        columns={[
          ['Name', (c) => c.name || '—'],
          ['Email', (c) => c.email ?? '—'],
          ['Phone', (c) => c.phone ?? '—'],
          ['Reference', (c) => c.ref ?? '—'],
          [
            'Consents',
            (c) =>
              c.consents.length === 0
                ? 'none'
                : c.consents
                    .map((consent) => `${consent.purpose} (${consent.active ? 'active' : `withdrawn ${when(consent.withdrawn_at)}`})`)
                    .join(', '),
          ],
        ]}
      />
    </Page>
  );
}
