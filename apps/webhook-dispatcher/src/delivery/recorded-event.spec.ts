import { eraseEventData, PublicEvent, sampleEventData } from '@svc/contracts';
import { deliveryBody, erasedDeliveryBody } from './recorded-event';

describe('delivery bodies', () => {
  const event = { id: 42, event: 'handover.created', at: '2026-11-21T10:04:05.123456+00:00', data: sampleEventData('handover.created', { n: 9 }) } as PublicEvent;

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
