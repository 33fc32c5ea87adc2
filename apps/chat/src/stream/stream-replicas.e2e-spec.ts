import { ErrorBody, WhoamiResponseDto } from '@svc/contracts';
import { ChatStream, ChatVisitor, RunningApp, Stack, startApp, startStack } from '@svc/testing';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** Limits small enough to reach; the token's is the contract's 5. */
const LIMITS = { VISITOR_STREAMS_PER_ADDRESS: '6', VISITOR_STREAMS_PER_ACCOUNT: '7', TRUST_PROXY: 'loopback' };

/**
 * Two chat replicas on one database and the one Redis: the open visitor streams of a token, an
 * address and an account are counted across both, 30 opened at once spread over the two.
 */
describe('visitor stream limits across two chat replicas (processes, real PostgreSQL and Redis)', () => {
  let stack: Stack;
  let replicas: RunningApp[];
  const widgets: Record<'acme' | 'other', string> = { acme: '', other: '' };
  /** An address of this run only (the one Redis is shared by every suite). */
  const run = randomBytes(2).toString('hex');
  let hosts = 0;
  const address = () => `2001:db8:${run}:${(hosts += 1).toString(16)}::1`;

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'chat'], { appEnv: { chat: LIMITS } });
    const first = stack.services['chat'] as RunningApp;
    const second = await startApp('chat', {
      ...stack.env,
      ...LIMITS,
      GATEWAY_URL: stack.gateway.internalUrl,
      CONTACTS_API_URL: (stack.services['contacts-api'] as RunningApp).internalUrl,
    });
    replicas = [first, second];
    for (const [name, key] of [
      ['acme', stack.account.key],
      ['other', stack.other.key],
    ] as const)
      widgets[name] = ((await (await stack.call('/whoami', { key })).json()) as WhoamiResponseDto).widget;
  }, 120_000);

  afterAll(async () => {
    await replicas?.[1]?.stop();
    await stack?.stop();
  });

  /** A visitor of `widget` from `from`, its session made on the first replica. */
  const visitorOf = async (widget: string, from: string): Promise<ChatVisitor> => {
    const visitor = new ChatVisitor(replicas[0]!.url, { 'x-forwarded-for': from });
    expect((await visitor.session({ widget })).status).toBe(201);
    return visitor;
  };
  /** Opens a stream of `visitor` on replica `i % 2`. */
  const openOn = (i: number, visitor: ChatVisitor, from: string) =>
    ChatStream.open(`${replicas[i % 2]!.url}/chat/v1/stream`, visitor.token, { 'x-forwarded-for': from });
  const opened = (streams: ChatStream[]) => streams.filter((s) => s.status === 200);
  /** The refusal of one more stream, as JSON. */
  const refusal = async (i: number, visitor: ChatVisitor, from: string) => {
    const response = await fetch(`${replicas[i % 2]!.url}/chat/v1/stream`, {
      headers: { authorization: `Bearer ${visitor.token}`, 'x-forwarded-for': from },
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as ErrorBody };
  };
  const closeAll = (streams: ChatStream[]) => Promise.all(streams.map((s) => s.close()));

  it('a visitor token: 30 streams at once over both replicas, exactly 5 open; the rest 429 with Retry-After; a close frees a slot', async () => {
    const from = address();
    const visitor = await visitorOf(widgets.acme, from);
    const streams = await Promise.all(Array.from({ length: 30 }, (_, i) => openOn(i, visitor, from)));
    expect(opened(streams)).toHaveLength(5);
    expect(streams.filter((s) => s.status !== 200).map((s) => s.status)).toEqual(Array(25).fill(429));
    expect(await refusal(0, visitor, from)).toEqual({
      status: 429,
      retryAfter: '10',
      body: { error: { code: 'rate_limited', message: expect.stringContaining('per visitor token') } },
    });
    await opened(streams)[0]!.close();
    await sleep(200); // the slot is given back once the replica sees the close
    const again = await openOn(1, visitor, from);
    expect(again.status).toBe(200);
    await closeAll([...streams, again]);
  }, 60_000);

  it('an address: 30 streams of 30 tokens at once over both replicas, exactly 6 open', async () => {
    const from = address();
    const visitors = await Promise.all(Array.from({ length: 30 }, () => visitorOf(widgets.other, from)));
    const streams = await Promise.all(visitors.map((visitor, i) => openOn(i, visitor, from)));
    expect(opened(streams)).toHaveLength(6);
    expect((await refusal(0, visitors[29]!, from)).body.error.message).toContain('per address');
    await closeAll(streams);
  }, 60_000);

  it('an account: 30 streams of 30 visitors (each its own address) at once over both replicas, exactly 7 open; a close frees a slot', async () => {
    const froms = Array.from({ length: 30 }, () => address());
    const visitors = await Promise.all(froms.map((from) => visitorOf(widgets.acme, from)));
    const streams = await Promise.all(visitors.map((visitor, i) => openOn(i, visitor, froms[i]!)));
    expect(opened(streams)).toHaveLength(7);
    const refused = streams.findIndex((s) => s.status !== 200);
    expect(await refusal(refused, visitors[refused]!, froms[refused]!)).toMatchObject({ status: 429, retryAfter: '10' });
    // Another account's visitors are not held back by it.
    const elsewhere = address();
    const other = await visitorOf(widgets.other, elsewhere);
    const theirs = await openOn(1, other, elsewhere);
    expect(theirs.status).toBe(200);
    await opened(streams)[0]!.close();
    await sleep(200);
    const again = await openOn(refused, visitors[refused]!, froms[refused]!);
    expect(again.status).toBe(200);
    await closeAll([...streams, again, theirs]);
  }, 60_000);
});
