import type { Booking, BookingsPage, BookingStatus } from '@svc/contracts';
import { useState } from 'react';
import { api, query } from '../api';
import { customerName } from '../names';
import { Link } from '../router';
import { anyOf, ErrorNote, Page, RunButton, Select, Table, useAction, useLoad, when } from '../ui';

/** What the team may do with a booking in each state (the chat enforces the same transitions). */
const ACTIONS: Record<BookingStatus, { status: 'confirmed' | 'declined' | 'cancelled'; label: string }[]> = {
  requested: [
    { status: 'confirmed', label: 'Confirm' },
    { status: 'declined', label: 'Decline' },
    { status: 'cancelled', label: 'Cancel' },
  ],
  confirmed: [{ status: 'cancelled', label: 'Cancel' }],
  declined: [],
  cancelled: [],
};

/** Bookings: confirm, decline, cancel; the customer is told in the conversation. */
export default function Bookings() {
  const [status, setStatus] = useState<BookingStatus | ''>('');
  const list = useLoad(() => api<BookingsPage>('GET', `/bookings${query({ status, limit: 200 })}`), [status]);
  const change = useAction(async (booking: Booking, next: 'confirmed' | 'declined' | 'cancelled') => {
    await api('PATCH', `/bookings/${booking.id}`, { status: next });
    await list.reload();
  });
  return (
    <Page title="Bookings">
      <Select
        label="Status"
        value={status}
        onChange={setStatus}
        options={anyOf<BookingStatus>(['requested', 'confirmed', 'declined', 'cancelled'])}
      />
      <ErrorNote error={list.error ?? change.error} />
      <Table
        caption="Bookings"
        rows={list.data?.bookings}
        empty="No bookings."
        columns={[
          ['When', (b) => when(b.starts_at)],
          ['Customer', (b) => <Link to={`/inbox/${b.conversation_id}`}>{customerName(b.contact)}</Link>],
          ['Listing', (b) => b.listing_ref ?? '—'],
          ['Note', (b) => b.note || '—'],
          [
            'Status',
            (b) => (
              <>
                {b.status} <span className="note">by {b.created_by}</span>
              </>
            ),
          ],
          [
            '',
            (b) =>
              ACTIONS[b.status].map((action) => (
                <RunButton
                  key={action.status}
                  run={() => change.run(b, action.status)}
                  pending={change.pending}
                  label={`${action.label} booking ${b.id}`}
                >
                  {action.label}
                </RunButton>
              )),
          ],
        ]}
      />
    </Page>
  );
}
