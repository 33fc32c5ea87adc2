import { eraseEventData, PublicEvent, sampleEventData } from '@svc/contracts';
import { deliveryBody, erasedDeliveryBody, InvalidRecordedEventError, parseRecordedEvent } from './recorded-event';

describe('delivery bodies', () => {
  const event = {
    id: 42,
    event: 'handover.created',
    at: '2026-11-21T10:04:05.123456+00:00',
    data: sampleEventData('handover.created', { n: 9 }),
  } as PublicEvent;

  it("an erased body is the same event, in the same key order, with the feed's blanked data", () => {
    const body = deliveryBody(event);
    const erased = erasedDeliveryBody(body);
    expect(erased.toString('utf8')).toBe(JSON.stringify({ ...event, data: eraseEventData(event.data) }));
    expect(erased.toString('utf8')).not.toMatch(/Ada|ada@example\.com|447700900123/);
    expect(erasedDeliveryBody(erased).equals(erased)).toBe(true);
  });

  it('leaves a body that is not an event object alone', () => {
    for (const text of ['not json', '[1,2]', 'null']) expect(erasedDeliveryBody(Buffer.from(text)).toString()).toBe(text);
  });
});

describe('parseRecordedEvent', () => {
  const recorded = {
    account_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    event_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    event: {
      id: 42,
      event: 'handover.created',
      at: '2026-11-21T10:04:05.123456+00:00',
      data: sampleEventData('handover.created', { n: 9 }),
    },
  };

  it('returns the value itself when it is a recorded event (a kind added later passes too)', () => {
    expect(parseRecordedEvent(recorded)).toBe(recorded);
    const later = { ...recorded, event: { ...recorded.event, event: 'invoice.paid' } };
    expect(parseRecordedEvent(later)).toBe(later);
  });

  it('names every bad field, nested ones by their path', () => {
    const bad = { account_id: 'acme', event: { id: 0, event: 'Handover', at: 7, data: 'x' } };
    expect(() => parseRecordedEvent(bad)).toThrow(InvalidRecordedEventError);
    expect(() => parseRecordedEvent(bad)).toThrow(
      'account_id must be a UUID; event.id must be a positive integer; event.event must be an event kind; event.at must be a timestamp; event.data must be an object',
    );
    expect(() => parseRecordedEvent({ ...recorded, event: undefined })).toThrow('event is required');
    expect(() => parseRecordedEvent('text')).toThrow('the value is not an object');
  });
});
