import { sampleEventData } from '@svc/contracts';
import { domainMessage } from './outbox';
import { InvalidMessageError } from './failures';
import { parseDomainMessage } from './validation';

const ACCOUNT = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('parseDomainMessage', () => {
  const valid = domainMessage('message.received', ACCOUNT, sampleEventData('message.received'));

  it('accepts a message as producers write it', () => {
    expect(parseDomainMessage(JSON.parse(JSON.stringify(valid)))).toEqual(valid);
    const erased = domainMessage('contact.erased', ACCOUNT, { svc_id: 7, ref: null });
    expect(parseDomainMessage(erased, ['contact.erased'])).toBe(erased);
  });

  it.each([
    ['not an object', 'text'],
    ['an array', [valid]],
    ['no id', { ...valid, id: undefined }],
    ['an id that is not a UUID', { ...valid, id: '42' }],
    ['an unknown kind', { ...valid, kind: 'contact.deleted' }],
    ['a kind the consumer does not handle', { ...valid, kind: 'knowledge.changed', data: { external_ref: 'x', change: 'deleted' } }],
    ['a timestamp without a zone', { ...valid, at: '2026-11-21T10:04:05.123456' }],
    ['an offset PostgreSQL cannot store (+16:00)', { ...valid, at: '2026-11-21T10:04:05.123456+16:00' }],
    ['an offset with 60 minutes', { ...valid, at: '2026-11-21T10:04:05+05:60' }],
    ['a day the calendar does not have', { ...valid, at: '2026-02-30T10:04:05Z' }],
    ['an account that is not a UUID', { ...valid, account_id: 'acme' }],
    ['data that is not an object', { ...valid, data: 'x' }],
    ['a public event without its contact', { ...valid, data: { message: {} } }],
    ['an erasure without svc_id', { ...domainMessage('contact.erased', ACCOUNT, { svc_id: 1, ref: null }), data: {} }],
  ])('refuses %s as invalid (it will be parked)', (_, payload) => {
    expect(() => parseDomainMessage(payload, ['message.received', 'contact.erased'])).toThrow(InvalidMessageError);
  });
});
