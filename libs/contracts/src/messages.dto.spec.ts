import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { DomainMessageDto, RecordedEventDto, RecordedPublicEventDto } from './messages.dto';

const messages = (errors: ValidationError[]): string[] =>
  errors.flatMap((error) => [...Object.values(error.constraints ?? {}), ...messages(error.children ?? [])]);
const problems = (dto: new () => object, plain: object) => messages(validateSync(plainToInstance(dto, plain)));

describe("the messages' envelopes", () => {
  const at = '2026-11-21T10:04:05.123456+00:00';

  it("a domain message's problems say what each field is not, in the fields' order", () => {
    const valid = { id: '0f8fad5b-d9cb-469f-a165-70867728950e', account_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' };
    expect(problems(DomainMessageDto, { ...valid, kind: 'contact.erased', at, data: {} })).toEqual([]);
    expect(problems(DomainMessageDto, { id: 'x', account_id: 'y', kind: 'contact.deleted', at: 7, data: 'x' })).toEqual([
      'id is not a UUID',
      'account_id is not a UUID',
      'kind is unknown',
      'at is not a timestamp with a zone',
      'data is not an object',
    ]);
  });

  it("a recorded event's problems say what each field must be, in the fields' order", () => {
    const event = { id: 42, event: 'invoice.paid', at, data: {} };
    expect(problems(RecordedPublicEventDto, event)).toEqual([]);
    expect(problems(RecordedPublicEventDto, { id: 0, event: 'Invoice', at: 7, data: [] })).toEqual([
      'id must be a positive integer',
      'event must be an event kind',
      'at must be a timestamp',
      'data must be an object',
    ]);
    expect(problems(RecordedEventDto, { account_id: 'acme', event: { ...event, at: null } })).toEqual([
      'account_id must be a UUID',
      'at must be a timestamp',
    ]);
  });
});
