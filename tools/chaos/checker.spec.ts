import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs `body` as an ES module beside the chaos runner's modules (Jest runs CommonJS); returns what it prints as JSON. */
function run<T>(body: string): T {
  const url = (file: string) => pathToFileURL(join(__dirname, file)).href;
  const code = `import * as checker from '${url('checker.mjs')}';\nimport * as faults from '${url('faults.mjs')}';\n${body}`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as T;
}

const event = (id: number, kind: string, conversation: number, message: number) => ({
  id,
  event: kind,
  at: '2026-11-27T10:00:00.000000+00:00',
  data: { conversation: { id: conversation }, message: { id: message } },
});
const customer = (id: number) => ({ id, author: 'customer', text: `q${id}` });
const assistant = (id: number) => ({ id, author: 'assistant', text: `a${id}` });

interface ChatResult {
  events: number;
  replies: number;
  lost: number;
  duplicated: number;
  disorder: number;
  problems: string[];
}

/** checkFeedAndChat on one account whose feed, reader and conversation are given. */
function checkChat(scenario: {
  feed: unknown[];
  readerIds: number[];
  repeats?: number;
  messages: unknown[];
  sent: unknown[];
  arrivals: number[];
}) {
  return run<ChatResult>(`
    const s = ${JSON.stringify(scenario)};
    const conversation = { accountId: 'a', id: 1, messages: s.messages, sent: s.sent,
      stream: { arrivals: s.arrivals, seen: new Map(s.arrivals.map((id) => [id, {}])) } };
    const result = checker.checkFeedAndChat({
      accounts: [{ accountId: 'a' }],
      feeds: new Map([['a', s.feed]]),
      readers: new Map([['a', { ids: s.readerIds, repeats: s.repeats ?? 0, backwards: 0 }]]),
      conversations: [conversation],
    });
    console.log(JSON.stringify(result));`);
}

const goodFeed = [event(1, 'message.received', 1, 1), event(2, 'message.sent', 1, 2)];
const good = {
  feed: goodFeed,
  readerIds: [1, 2],
  messages: [customer(1), assistant(2)],
  sent: [{ id: 1, text: 'q1', attempts: 1 }],
  arrivals: [1, 2],
};

describe('the chaos checker (tools/chaos/checker.mjs)', () => {
  it('passes a run where everything acknowledged is there once', () => {
    expect(checkChat(good)).toMatchObject({ events: 2, replies: 1, lost: 0, duplicated: 0, disorder: 0 });
  });

  it('counts a message without its reply, an event missing from the feed and a message its stream missed as lost', () => {
    expect(checkChat({ ...good, messages: [customer(1)], feed: [goodFeed[0]], readerIds: [1], arrivals: [1] }).lost).toBe(1);
    expect(checkChat({ ...good, feed: [goodFeed[0]], readerIds: [1] }).lost).toBe(1);
    expect(checkChat({ ...good, arrivals: [1] }).lost).toBe(1);
    expect(checkChat({ ...good, readerIds: [2] }).lost).toBe(1);
  });

  it('counts an event twice in the feed, a reader repeat and a reply to no message as duplicated', () => {
    const twice = [...goodFeed, { ...goodFeed[1]!, id: 3 }];
    expect(checkChat({ ...good, feed: twice, readerIds: [1, 2, 3] }).duplicated).toBe(1);
    expect(checkChat({ ...good, repeats: 1 }).duplicated).toBe(1);
    const extra = { messages: [customer(1), assistant(2), assistant(3)], feed: [...goodFeed, event(3, 'message.sent', 1, 3)] };
    expect(checkChat({ ...good, ...extra, readerIds: [1, 2, 3], arrivals: [1, 2, 3] }).duplicated).toBe(1);
  });

  it('counts a stream that saw messages out of order', () => {
    expect(checkChat({ ...good, arrivals: [2, 1] }).disorder).toBe(1);
  });

  it('counts an undelivered event as lost and a delivery signed with another secret as for the wrong account', () => {
    const secret = 'whsec_one';
    const body = JSON.stringify(goodFeed[0]);
    const signed = (key: string) => `sha256=${createHmac('sha256', key).update(`1700000000.${body}`).digest('hex')}`;
    const deliveries = (signature: string) =>
      run<{ deliveries: number; lost: number; wrongAccount: number }>(`
        const feed = ${JSON.stringify(goodFeed)};
        const request = { path: '/a/0', body: Buffer.from(${JSON.stringify(body)}),
          headers: { 'x-svc-timestamp': '1700000000', 'x-svc-signature': '${signature}', 'x-svc-event-id': '1' } };
        const result = checker.checkDeliveries({
          accounts: [{ accountId: 'a', endpoints: [{ path: '/a/0', events: null, secret: '${secret}' }] }],
          feeds: new Map([['a', feed]]),
          receiver: { requests: [request] },
        });
        console.log(JSON.stringify(result));`);
    expect(deliveries(signed(secret))).toMatchObject({ deliveries: 1, lost: 1, wrongAccount: 0 });
    expect(deliveries(signed('whsec_other'))).toMatchObject({ deliveries: 0, lost: 2, wrongAccount: 1 });
  });

  it('expects only 503s with the error shape inside a fault window', () => {
    const result = run<{ expected503: number; unexpected: number }>(`
      const shaped = { error: { code: 'unavailable' } };
      const recorder = { serverErrors: [
        { at: 1500, status: 503, shaped: true }, { at: 5000, status: 503, shaped: true },
        { at: 1500, status: 503, shaped: false }, { at: 1500, status: 500, shaped: true },
      ] };
      console.log(JSON.stringify(checker.checkServerErrors(recorder, [{ from: 1000, to: 2000 }])));`);
    expect(result).toMatchObject({ expected503: 1, unexpected: 3 });
  });

  it('draws the same fault schedule from the same seed, a kill every 20–40 s and one outage of each service', () => {
    const schedules = run<Array<Array<{ at: number; kind: string }>>>(`
      const random = (seed) => { let s = seed; return () => ((s = (s * 16807) % 2147483647) / 2147483647); };
      const names = ['gateway-1', 'gateway-2', 'chat-1', 'chat-2'];
      console.log(JSON.stringify([7, 7, 8].map((seed) => faults.faultSchedule(random(seed), 600, names))));`);
    expect(schedules[0]).toEqual(schedules[1]);
    expect(schedules[0]).not.toEqual(schedules[2]);
    const kills = schedules[0]!.filter((f) => f.kind === 'kill').map((f) => f.at);
    kills.slice(1).forEach((at, i) => expect(at - kills[i]!).toBeGreaterThanOrEqual(19));
    kills.slice(1).forEach((at, i) => expect(at - kills[i]!).toBeLessThanOrEqual(41));
    for (const kind of ['rabbitmq', 'postgresql', 'redis']) expect(schedules[0]!.filter((f) => f.kind === kind)).toHaveLength(1);
  });
});
