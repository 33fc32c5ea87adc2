import { context, isSpanContextValid, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * Trace context that crosses a hop the instrumentations cannot see (an outbox row, a batched
 * insert, a delivery waiting for its attempt): the W3C `traceparent` of the work that caused it,
 * kept as text beside the row and taken up again when the row is worked on. Without tracing
 * configured every function here is a no-op: no span is ever recording, and nothing is kept.
 */
export const tracer = trace.getTracer('svc');

/** The active span, when there is a real one (tracing on): sampled or not, its trace goes on downstream. */
function activeSpan(): Span | undefined {
  const span = trace.getSpan(context.active());
  return span && isSpanContextValid(span.spanContext()) ? span : undefined;
}

/** The `traceparent` of the span active now, or undefined (tracing off, or no span). */
export function currentTraceparent(): string | undefined {
  if (!activeSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'];
}

/** Runs `work` as part of the trace of `traceparent` (or as it would run without one). */
export function withTraceparent<T>(traceparent: string | null | undefined, work: () => T): T {
  if (!traceparent) return work();
  return context.with(propagation.extract(ROOT_CONTEXT, { traceparent }), work);
}

/**
 * Runs `work` in a span `name` of the trace of `traceparent` (the active trace when none is given):
 * the span ends when `work` settles, marked as an error if it throws.
 */
export async function inSpan<T>(
  name: string,
  options: { traceparent?: string | null; kind?: SpanKind; attributes?: Record<string, string | number | boolean> },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return withTraceparent(options.traceparent, () =>
    tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, async (span) => {
      try {
        return await work(span);
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
        throw err;
      } finally {
        span.end();
      }
    }),
  );
}

/** The span of an incoming call (`serverSpan`): the work of the call runs in it, and it ends with the response. */
export interface ServerSpan {
  /** Runs `work` (and what it starts) as part of the call's span. */
  run(work: () => void): void;
  /** Ends the span with the route the call took (its name: `POST /chat/v1/messages`) and the status it got. */
  end(route: string | undefined, statusCode: number): void;
  /** Its ids, when the trace is sampled (for the call's log lines). */
  readonly recorded: { traceId: string; spanId: string } | undefined;
}

/**
 * The span of a call that came in with `headers`: a child of the caller's `traceparent`, or the
 * root of a new trace (the sampler decides whether it is recorded). Attributes name the route,
 * never the path: a path holds refs.
 */
export function serverSpan(method: string, headers: Record<string, string | string[] | undefined>): ServerSpan {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
  const active = trace.setSpan(parent, span);
  const { traceId, spanId } = span.spanContext();
  return {
    recorded: span.isRecording() ? { traceId, spanId } : undefined,
    run: (work) => context.with(active, work),
    end: (route, statusCode) => {
      if (span.isRecording()) {
        if (route !== undefined) {
          span.updateName(`${method} ${route}`);
          span.setAttribute('http.route', route);
        }
        span.setAttribute('http.response.status_code', statusCode);
        if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

export { SpanKind, SpanStatusCode };
