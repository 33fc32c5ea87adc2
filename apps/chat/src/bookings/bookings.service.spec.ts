import { BOOKING_STATUSES } from '@svc/contracts';
import { BOOKING_TRANSITIONS, bookingNews } from './bookings.service';

describe('bookings: rules', () => {
  it('a requested booking may be confirmed, declined or cancelled; a confirmed one only cancelled; declined and cancelled are final', () => {
    const allowed = BOOKING_STATUSES.flatMap((from) => BOOKING_TRANSITIONS[from].map((to) => `${from}→${to}`));
    expect(allowed.sort()).toEqual(['confirmed→cancelled', 'requested→cancelled', 'requested→confirmed', 'requested→declined']);
  });

  it("tells the customer in the conversation's language, naming the piece's heading, else its ref, else the appointment", () => {
    const booking = {
      listing_ref: 'flat-7',
      listing_heading: 'Flat in Berlin',
      starts_at: '2026-12-01T10:30:00.000000+00:00',
      status: 'confirmed' as const,
    };
    expect(bookingNews(booking, 'en')).toBe('Your booking for Flat in Berlin on 2026-12-01 10:30 UTC is confirmed.');
    expect(bookingNews({ ...booking, listing_heading: null, status: 'declined' }, 'de')).toBe(
      'Leider wurde Ihre Buchungsanfrage für flat-7 am 2026-12-01 10:30 UTC abgelehnt.',
    );
    expect(bookingNews({ ...booking, listing_heading: null, listing_ref: null, status: 'requested' }, 'pt')).toBe(
      'Your booking request for your appointment on 2026-12-01 10:30 UTC was received. We will confirm it here.',
    );
  });
});
