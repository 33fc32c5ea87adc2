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

/** The trace and span ids of the active span, for a log line; empty without one. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = activeSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export { SpanKind, SpanStatusCode };
