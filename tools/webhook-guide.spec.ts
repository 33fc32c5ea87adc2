import { guideCode, guideVectors, verifyWithPython } from '@svc/testing';
import { sign, verify } from '@svc/webhook-signing';
import { runInNewContext } from 'node:vm';

/** docs/webhooks.md, the receiver guide: its test vectors, and its Node and Python verifiers run as written. */
describe('docs/webhooks.md: receiving webhooks', () => {
  const [vector, rotation] = guideVectors() as [Record<string, string>, Record<string, string>];
  const vectorHeaders = { 'x-svc-timestamp': vector['X-SVC-Timestamp'], 'x-svc-signature': vector['X-SVC-Signature'] };

  it('matches the test vectors published in the guide, at their `now`', () => {
    expect(Object.keys(vector)).toEqual(['secret', 'X-SVC-Timestamp', 'body', 'X-SVC-Signature', 'now']);
    expect(sign(vector['secret']!, vector['X-SVC-Timestamp']!, vector['body']!)).toBe(vector['X-SVC-Signature']);
    expect(verify(Buffer.from(vector['body']!), vectorHeaders, vector['secret']!, { now: Number(vector['now']) })).toMatchObject({
      id: 42,
      event: 'message.received',
    });
    expect(rotation['secret']).toBe(vector['secret']);
    expect(sign(rotation['next secret']!, vector['X-SVC-Timestamp']!, vector['body']!)).toBe(rotation['X-SVC-Signature-Next']);
    const rotated = { ...vectorHeaders, 'X-SVC-Signature-Next': rotation['X-SVC-Signature-Next'] };
    for (const key of [rotation['secret']!, rotation['next secret']!, [rotation['next secret']!, 'whsec_other']]) {
      expect(verify(vector['body']!, rotated, key, { now: Number(vector['now']) })).toMatchObject({ id: 42 });
    }
  });

  it("the guide's node:crypto snippet verifies the vector as written, and refuses a changed body", () => {
    const code = guideCode('js').find((block) => block.includes('function verifySvcWebhook'));
    expect(code).toBeDefined();
    expect(runInNewContext(code!, { require, Buffer })).toBe(true);
    const verifier = runInNewContext(`${code}\nverifySvcWebhook`, { require, Buffer }) as (
      s: unknown,
      h: object,
      b: Buffer,
      now: number,
    ) => boolean;
    expect(verifier(vector['secret'], vectorHeaders, Buffer.from(`${vector['body']} `), Number(vector['now']))).toBe(false);
    const rotated = {
      'x-svc-timestamp': vector['X-SVC-Timestamp'],
      'x-svc-signature': rotation['X-SVC-Signature'],
      'x-svc-signature-next': rotation['X-SVC-Signature-Next'],
    };
    expect(verifier(rotation['next secret'], rotated, Buffer.from(vector['body']!), Number(vector['now']))).toBe(true);
  });

  it("the guide's Python snippet verifies both vectors and refuses a wrong secret or a stale timestamp", () => {
    const at = Number(vector['now']);
    const body = Buffer.from(vector['body']!, 'utf8');
    const rotated = { ...vectorHeaders, 'X-SVC-Signature-Next': rotation['X-SVC-Signature-Next'] };
    expect(
      verifyWithPython([
        { secrets: vector['secret']!, headers: vectorHeaders, body, now: at },
        { secrets: [rotation['next secret']!], headers: rotated, body, now: at },
        { secrets: rotation['secret']!, headers: rotated, body, now: at },
        { secrets: 'whsec_other', headers: rotated, body, now: at },
        { secrets: vector['secret']!, headers: vectorHeaders, body, now: at + 400 },
        { secrets: vector['secret']!, headers: vectorHeaders, body: Buffer.concat([body, Buffer.from(' ')]), now: at },
      ]),
    ).toEqual([true, true, true, false, false, false]);
  });
});
