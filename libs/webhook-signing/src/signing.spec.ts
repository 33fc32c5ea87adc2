import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sign, verify } from './signing';

const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
const section = readme.split('## Receiving webhooks')[1]?.split('\n## ')[0] ?? '';

/** The README's test vector: `name: value` lines of its ```text block. */
function readmeVector(): Record<string, string> {
  const block = /```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return Object.fromEntries([...block.matchAll(/^([\w-]+):\s+(.*)$/gm)].map((m) => [m[1], m[2]]));
}

describe('webhook signing', () => {
  const secret = 'whsec_' + 'k'.repeat(43);
  const body = '{"id":1,"event":"message.sent","data":{"text":"Grüße"}}';
  const now = 1_795_255_445;

  it('matches the test vector published in the README', () => {
    const vector = readmeVector();
    expect(Object.keys(vector)).toEqual(['secret', 'X-SVC-Timestamp', 'body', 'X-SVC-Signature']);
    expect(sign(vector['secret']!, vector['X-SVC-Timestamp']!, vector['body']!)).toBe(vector['X-SVC-Signature']);
    expect(verify(vector['secret']!, vector['X-SVC-Timestamp'], Buffer.from(vector['body']!), vector['X-SVC-Signature'], { nowSeconds: now })).toBe(true);
  });

  it("the README's copy-paste verifier accepts the vector and refuses a changed body", () => {
    const code = /```js\n(const \{ createHmac[\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    const verifier = new Function('require', `${code}\nreturn verifySvcWebhook;`)(require) as (s: string, h: object, b: Buffer) => boolean;
    const vector = readmeVector();
    const headers = { 'x-svc-timestamp': vector['X-SVC-Timestamp'], 'x-svc-signature': vector['X-SVC-Signature'] };
    jest.spyOn(Date, 'now').mockReturnValue(now * 1000 + 299_000);
    try {
      expect(verifier(vector['secret']!, headers, Buffer.from(vector['body']!))).toBe(true);
      expect(verifier(vector['secret']!, headers, Buffer.from(`${vector['body']} `))).toBe(false);
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('is HMAC-SHA256 keyed with the whole secret over "{timestamp}.{raw body}", as lowercase hex', () => {
    const independent = createHmac('sha256', secret).update(`${now}.${body}`, 'utf8').digest('hex');
    expect(sign(secret, now, body)).toBe(`sha256=${independent}`);
    expect(sign(secret, String(now), Buffer.from(body, 'utf8'))).toBe(`sha256=${independent}`);
  });

  it('verifies a fresh signature of the exact bytes', () => {
    expect(verify(secret, String(now), body, sign(secret, now, body), { nowSeconds: now })).toBe(true);
  });

  it('accepts a timestamp up to 300 s away and refuses one further', () => {
    const signature = sign(secret, now, body);
    expect(verify(secret, String(now), body, signature, { nowSeconds: now + 300 })).toBe(true);
    expect(verify(secret, String(now), body, signature, { nowSeconds: now - 300 })).toBe(true);
    expect(verify(secret, String(now), body, signature, { nowSeconds: now + 301 })).toBe(false);
    expect(verify(secret, String(now), body, signature, { nowSeconds: now - 301 })).toBe(false);
  });

  it.each([
    ['another body', secret, String(now), `${body} `, sign(secret, now, body)],
    ['another secret', `${secret}x`, String(now), body, sign(secret, now, body)],
    ['a timestamp other than the signed one', secret, String(now + 1), body, sign(secret, now, body)],
    ['uppercase hex', secret, String(now), body, sign(secret, now, body).toUpperCase()],
    ['no scheme', secret, String(now), body, sign(secret, now, body).slice('sha256='.length)],
    ['a truncated signature', secret, String(now), body, sign(secret, now, body).slice(0, -2)],
    ['a timestamp that is not decimal seconds', secret, `${now}.0`, body, sign(secret, `${now}.0`, body)],
    ['no timestamp', secret, undefined, body, sign(secret, now, body)],
    ['no signature', secret, String(now), body, undefined],
  ])('refuses %s', (_case, key, timestamp, rawBody, signature) => {
    expect(verify(key, timestamp, rawBody, signature, { nowSeconds: now })).toBe(false);
  });
});
