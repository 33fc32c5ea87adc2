import { WhoamiResponseDto } from '@svc/contracts';
import {
  ChatVisitor,
  closeAll,
  eventually,
  HttpsReceiver,
  OtlpReceiver,
  ReceivedSpan,
  Stack,
  startReceivingStack,
  TestCa,
  waitFor,
} from '@svc/testing';
import { randomBytes } from 'node:crypto';

/** A caller's W3C trace context: the trace every hop must continue. */
const callerTrace = () => {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
};
const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];
/** OpenTelemetry's SpanKind. */
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

/** One line per span: service, name, when it started after the first and how long it took (for reading a failure). */
const timeline = (spans: ReceivedSpan[]) => {
  const first = spans[0]?.startNs ?? 0n;
  return spans
    .map(
      (s) =>
        `${s.service.padEnd(20)} ${s.name.padEnd(44)} +${Number((s.startNs - first) / 1000n) / 1000} ms ${Number((s.endNs - s.startNs) / 1000n) / 1000} ms`,
    )
    .join('\n');
};

describe('traces: one trace from a cause to the webhooks it ends in (processes, real OTLP/HTTP receiver)', () => {
  let stack: Stack;
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let otlp: OtlpReceiver;
  let widget: string;

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    ({ ca, receiver, stack } = await startReceivingStack(
      ['contacts-api', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat'],
      {},
      {
        env: {
          // The standard variables, as an operator sets them (k8s/components/tracing).
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_TRACES_SAMPLER: 'parentbased_always_on',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
        // Access lines are at info.
        appEnv: { gateway: { LOG_LEVEL: 'info' } },
        startTimeoutMs: 60_000,
      },
    ));
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    const hook = await stack.call('/webhooks', {
      method: 'POST',
      json: { url: receiver.url('/hook'), events: ['message.received', 'consent.granted'] },
    });
    expect(hook.status).toBe(201);
  }, 300_000);

  afterAll(() => closeAll(stack, receiver, otlp, ca));

  /** The webhook of `kind` whose body satisfies `match`, once the receiver has it. */
  const webhook = (kind: string, match: (data: Record<string, unknown>) => boolean) =>
    waitFor(
      `a ${kind} webhook`,
      async () =>
        receiver.received('/hook').find((request) => {
          const body = JSON.parse(request.body.toString('utf8')) as { event: string; data: Record<string, unknown> };
          return body.event === kind && match(body.data);
        }),
      30_000,
    );

  /**
   * The trace's spans once `check` passes on them: each service exports a span when it ends, and a
   * consumer's span ends after the work it caused downstream may have. After 30 s, `check`'s last
   * failure, with the trace's timeline.
   */
  const spansWhere = (traceId: string, check: (spans: ReceivedSpan[]) => void): Promise<ReceivedSpan[]> =>
    eventually(async () => {
      const spans = otlp.trace(traceId);
      check(spans);
      return spans;
    }, 30_000).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${timeline(otlp.trace(traceId))}`);
    });
  const ofService = (spans: ReceivedSpan[], service: string, kind?: number) =>
    spans.filter((s) => s.service === service && (kind === undefined || s.kind === kind));

  it("a visitor's message: the gateway, the chat, its relay, the broker, events-api, the dispatcher and the receiver's request share the caller's trace", async () => {
    const { traceId, traceparent } = callerTrace();
    const visitor = new ChatVisitor(stack.gateway.url);
    const { body: session } = await visitor.session({ widget });
    const sent = await visitor.call('/messages', { method: 'POST', json: { text: 'Hello, is anyone there?' }, headers: { traceparent } });
    expect(sent.status).toBe(201);

    const delivered = await webhook('message.received', (data) => (data['conversation'] as { id: number }).id === session.conversation.id);
    expect(traceIdOf(delivered.headers['traceparent'])).toBe(traceId);

    await spansWhere(traceId, (spans) => {
      expect(ofService(spans, 'gateway', SERVER)).not.toHaveLength(0);
      expect(ofService(spans, 'chat', SERVER)).not.toHaveLength(0);
      // The chat's commit (PostgreSQL), its relay's publish, events-api's consume and append, its relay, the dispatcher's consume.
      const commit = spans.find((s) => s.service === 'chat' && s.name.includes('chat_add_message'));
      expect(commit?.attributes['db.system.name'] ?? commit?.attributes['db.system']).toBe('postgresql');
      expect(ofService(spans, 'chat', PRODUCER)).not.toHaveLength(0);
      expect(ofService(spans, 'events-api', CONSUMER)).not.toHaveLength(0);
      expect(ofService(spans, 'events-api', PRODUCER)).not.toHaveLength(0);
      expect(ofService(spans, 'webhook-dispatcher', CONSUMER)).not.toHaveLength(0);
      const attempt = spans.find((s) => s.service === 'webhook-dispatcher' && s.name === 'webhook message.received');
      expect(attempt?.attributes['http.response.status_code']).toBe(200);
      // The receiver's request is the attempt's child: its traceparent names a span of the attempt's subtree.
      const requestParent = String(delivered.headers['traceparent']).split('-')[2];
      expect(spans.some((s) => s.spanId === requestParent && s.service === 'webhook-dispatcher')).toBe(true);
    });
    // The gateway's access line of the call carries the trace.
    expect(stack.gateway.output()).toContain(`"trace_id":"${traceId}"`);
  }, 90_000);

  it("a consent given in the chat: the chat's internal call, contacts-api's outbox, events-api and the webhook share the caller's trace", async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    const { body: session } = await visitor.session({ widget });
    await visitor.send('Can you keep me posted?');
    const texts = (await (await visitor.call('/texts?lang=en', { auth: false })).json()) as { future_whatsapp_consent: string };
    const { traceId, traceparent } = callerTrace();
    const given = await visitor.call('/consents', {
      method: 'POST',
      headers: { traceparent },
      json: { purpose: 'future_whatsapp', consent_text: texts.future_whatsapp_consent, lang: 'en' },
    });
    expect(given.status).toBe(201);
    const delivered = await webhook('consent.granted', (data) => (data['conversation'] as { id: number }).id === session.conversation.id);
    expect(traceIdOf(delivered.headers['traceparent'])).toBe(traceId);
    await spansWhere(traceId, (spans) => {
      for (const service of ['gateway', 'chat', 'events-api']) expect(ofService(spans, service)).not.toHaveLength(0);
      expect(ofService(spans, 'contacts-api', SERVER)).not.toHaveLength(0);
      expect(ofService(spans, 'contacts-api', PRODUCER)).not.toHaveLength(0);
      expect(spans.some((s) => s.service === 'webhook-dispatcher' && s.name === 'webhook consent.granted')).toBe(true);
    });
  }, 90_000);

  it('without a caller trace, the gateway starts one and the webhook carries it', async () => {
    const visitor = new ChatVisitor(stack.gateway.url);
    const { body: session } = await visitor.session({ widget });
    await visitor.send('A second question');
    const delivered = await webhook('message.received', (data) => (data['conversation'] as { id: number }).id === session.conversation.id);
    const traceId = traceIdOf(delivered.headers['traceparent']);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const spans = await spansWhere(traceId!, (spans) => {
      for (const service of ['gateway', 'chat', 'events-api']) expect(ofService(spans, service)).not.toHaveLength(0);
      expect(spans.some((s) => s.service === 'webhook-dispatcher' && s.name === 'webhook message.received')).toBe(true);
    });
    expect(spans[0]?.service).toBe('gateway');
  }, 90_000);
});
