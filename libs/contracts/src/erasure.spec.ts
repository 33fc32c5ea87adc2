import { eraseEventData, eventContactSvcId } from './erasure';
import { sampleEventData } from './event-samples';

describe('eraseEventData: the one blanking rule of the feed and the webhooks', () => {
  it("blanks the contact's name, email and phone and keeps its ids, flags and the rest of the event", () => {
    const data = sampleEventData('message.received', { n: 3 });
    const erased = eraseEventData(data);
    expect(erased.contact).toEqual({ ...data.contact, name: '', email: null, phone: null });
    expect(erased.contact.svc_id).toBe(data.contact.svc_id);
    expect(erased.message).toEqual(data.message);
    expect(erased.conversation).toEqual(data.conversation);
    expect(Object.keys(erased)).toEqual(Object.keys(data));
    expect(Object.keys(erased.contact)).toEqual(Object.keys(data.contact));
    expect(data.contact.name).not.toBe('');
  });

  it("blanks a handover's reach (email and WhatsApp number) as well", () => {
    const data = sampleEventData('handover.created', { n: 4 });
    const erased = eraseEventData(data);
    expect(erased.reach).toEqual({ ...data.reach, email: '', whatsapp: '' });
    expect(JSON.stringify(erased)).not.toContain(data.reach.email);
  });

  it('is idempotent and leaves anything that is not an object alone', () => {
    const once = eraseEventData(sampleEventData('handover.created', { n: 5 }));
    expect(eraseEventData(once)).toEqual(once);
    expect(eraseEventData(null)).toBeNull();
    expect(eraseEventData({ contact: null })).toEqual({ contact: null });
  });

  it("reads the customer's svc_id of an event, or null when there is none", () => {
    expect(eventContactSvcId(sampleEventData('message.sent', { n: 7 }))).toBe(1007);
    expect(eventContactSvcId({ contact: { svc_id: '7' } })).toBeNull();
    expect(eventContactSvcId({})).toBeNull();
  });
});
