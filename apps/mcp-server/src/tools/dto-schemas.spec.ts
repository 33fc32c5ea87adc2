import { CreateBookingDto, ListConversationsQueryDto, TeachAssistantDto, UpdateBookingDto } from '@svc/contracts';
import { dtoSchema } from './dto-schemas';

describe('dtoSchema (class-validator rules → JSON schema)', () => {
  it("types, bounds, enums, patterns and required fields come from the DTO's decorators", () => {
    const booking = dtoSchema(CreateBookingDto);
    expect((booking['required'] as string[]).sort()).toEqual(['conversation_id', 'created_by', 'starts_at']);
    expect(booking.properties['conversation_id']).toEqual({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(booking.properties['starts_at']).toEqual({ type: 'string', maxLength: 64 });
    expect(booking.properties['created_by']).toEqual({ enum: ['team', 'agent'] });
    expect(booking.properties['note']).toMatchObject({ type: 'string', allOf: [{ pattern: expect.any(String) }] });
    expect(dtoSchema(UpdateBookingDto).properties['status']).toEqual({ enum: ['confirmed', 'declined', 'cancelled'] });
  });

  it('a property that may be null (NullOr) has the types of its value and null, and stays required', () => {
    const teach = dtoSchema(TeachAssistantDto);
    expect(teach.properties['external_ref']).toEqual({ type: ['string', 'null'], allOf: [{ pattern: expect.any(String) }] });
    expect(teach.properties['lang']).toEqual({ type: 'string' });
    expect((teach['required'] as string[]).sort()).toEqual(['external_ref', 'question']);
  });

  it('a query DTO whose fields are all optional has no required list', () => {
    const query = dtoSchema(ListConversationsQueryDto);
    expect(query['required']).toBeUndefined();
    expect(Object.keys(query.properties).sort()).toEqual(['after', 'channel', 'limit', 'needs_human']);
    expect(query.properties['limit']).toEqual({ type: 'integer', minimum: 1, maximum: 200 });
  });
});
