import { EventContact, HandoverReachDto } from '@svc/contracts';
import { reachOf } from './conversation.service';

const contact = (over: Partial<EventContact> = {}): EventContact => ({
  ref: 'c-1',
  svc_id: 1,
  name: 'Ada',
  email: 'ada@example.com',
  email_confirmed: true,
  phone: '+447700900123',
  phone_confirmed: false,
  lang: null,
  created_at: '2026-11-21T10:04:05.000000+00:00',
  updated_at: '2026-11-21T10:04:05.000000+00:00',
  ...over,
});
const dto = (over: Partial<HandoverReachDto>): HandoverReachDto =>
  Object.assign(new HandoverReachDto(), { channel: 'email', consent: true, consent_text: 'x', ...over });

describe('reach of handover.created', () => {
  it('an email the business confirmed for this customer is verified (compared without case)', () => {
    expect(reachOf(dto({ email: 'ADA@example.com' }), contact())).toEqual({
      method: 'email',
      email: 'ADA@example.com',
      email_verified: true,
      whatsapp: '',
      whatsapp_verified: false,
      consent: true,
    });
  });

  it('another address, or an unconfirmed number, is not verified', () => {
    expect(reachOf(dto({ email: 'other@example.com' }), contact()).email_verified).toBe(false);
    expect(reachOf(dto({ channel: 'whatsapp', phone: '+447700900123', consent: false }), contact())).toEqual({
      method: 'whatsapp',
      email: '',
      email_verified: false,
      whatsapp: '+447700900123',
      whatsapp_verified: false,
      consent: false,
    });
    expect(reachOf(dto({ channel: 'whatsapp', phone: '+447700900123' }), contact({ phone_confirmed: true })).whatsapp_verified).toBe(true);
  });
});
