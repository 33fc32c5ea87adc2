import { thrownBy } from '@svc/testing';
import { createHmac } from 'node:crypto';
import { sign, signedHeaders, verify, WebhookVerificationError } from './signing';

/** Why `verify` refused, or undefined when it took the delivery. */
const failure = (run: () => unknown): string | undefined => thrownBy(run, WebhookVerificationError)?.reason;

describe('webhook signing', () => {
  const secret = 'whsec_' + 'k'.repeat(43);
  const next = 'whsec_' + 'n'.repeat(43);
  const body = '{"id":1,"event":"message.sent","at":"2026-11-21T10:04:05.123456+00:00","data":{"text":"Grüße"}}';
  const now = 1_795_255_445;
  it('is HMAC-SHA256 keyed with the whole secret over "{timestamp}.{raw body}", as lowercase hex', () => {
    const independent = createHmac('sha256', secret).update(`${now}.${body}`, 'utf8').digest('hex');
    expect(sign(secret, now, body)).toBe(`sha256=${independent}`);
    expect(sign(secret, String(now), Buffer.from(body, 'utf8'))).toBe(`sha256=${independent}`);
  });

  it('returns the parsed event of a fresh signature; reads Node, Fetch and mixed-case headers', () => {
    const headers = signedHeaders(body, secret, { timestamp: now });
    expect(headers['X-SVC-Event-Id']).toBe('1');
    expect(headers['X-SVC-Event']).toBe('message.sent');
    expect(verify(body, headers, secret, { now })).toEqual(JSON.parse(body));
    expect(verify(Buffer.from(body), new Headers(headers), secret, { now: new Date(now * 1000) })).toMatchObject({ id: 1 });
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verify(Buffer.from(body), lower, [next, secret], { now })).toMatchObject({ id: 1 });
  });

  it('during a rotation verifies with the previous secret, the new one, or both', () => {
    const headers = signedHeaders(body, secret, { timestamp: now, nextSecret: next });
    expect(headers['X-SVC-Signature']).toBe(sign(secret, now, body));
    expect(headers['X-SVC-Signature-Next']).toBe(sign(next, now, body));
    for (const key of [secret, next, [secret, next]]) expect(verify(body, headers, key, { now })).toMatchObject({ id: 1 });
    expect(failure(() => verify(body, headers, 'whsec_other', { now }))).toBe('bad_signature');
  });

  it('accepts a timestamp up to the tolerance away and refuses one further (stale_timestamp)', () => {
    const headers = signedHeaders(body, secret, { timestamp: now });
    expect(failure(() => verify(body, headers, secret, { now: now + 300 }))).toBeUndefined();
    expect(failure(() => verify(body, headers, secret, { now: now - 300 }))).toBeUndefined();
    expect(failure(() => verify(body, headers, secret, { now: now + 301 }))).toBe('stale_timestamp');
    expect(failure(() => verify(body, headers, secret, { now: now - 301 }))).toBe('stale_timestamp');
    expect(failure(() => verify(body, headers, secret, { now: now + 1000, toleranceSec: 1000 }))).toBeUndefined();
  });

  const good = signedHeaders(body, secret, { timestamp: now });
  it.each([
    ['another body', `${body} `, good, 'bad_signature'],
    ['uppercase hex', body, { ...good, 'X-SVC-Signature': good['X-SVC-Signature']!.toUpperCase() }, 'bad_signature'],
    ['no scheme', body, { ...good, 'X-SVC-Signature': good['X-SVC-Signature']!.slice('sha256='.length) }, 'bad_signature'],
    ['a truncated signature', body, { ...good, 'X-SVC-Signature': good['X-SVC-Signature']!.slice(0, -2) }, 'bad_signature'],
    ['a timestamp other than the signed one', body, { ...good, 'X-SVC-Timestamp': String(now + 1) }, 'bad_signature'],
    ['a timestamp that is not decimal seconds', body, { ...good, 'X-SVC-Timestamp': `${now}.0` }, 'invalid_timestamp'],
    ['no timestamp', body, { 'X-SVC-Signature': good['X-SVC-Signature'] }, 'missing_header'],
    ['no signature', body, { 'X-SVC-Timestamp': String(now) }, 'missing_header'],
  ])('refuses %s', (_case, rawBody, headers, reason) => {
    expect(failure(() => verify(rawBody, headers, secret, { now }))).toBe(reason);
  });

  it('refuses a signed body that is not JSON (invalid_body)', () => {
    expect(
      failure(() => verify('not json', signedHeaders('not json', secret, { timestamp: now, eventId: 1, kind: 'x.y' }), secret, { now })),
    ).toBe('invalid_body');
  });
});
