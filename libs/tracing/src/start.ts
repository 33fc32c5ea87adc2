import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { IncomingMessage } from 'node:http';

/** Probes and scrapes: never traced (they would be most of the traces). */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Whether the standard OpenTelemetry variables ask for traces: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER=otlp`,
 * and not `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Off by default.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = env['OTEL_TRACES_EXPORTER'];
  if (exporters !== undefined && exporters.trim() !== '') {
    return exporters.split(',').some((name) => name.trim() === 'otlp');
  }
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
}

/** The OTLP/HTTP encoding the variables ask for: `http/protobuf` (the specification's default) or `http/json`. */
export function otlpProtocol(env: NodeJS.ProcessEnv = process.env): 'http/protobuf' | 'http/json' {
  const asked = (env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] ?? env['OTEL_EXPORTER_OTLP_PROTOCOL'] ?? 'http/protobuf').trim();
  if (asked === 'http/json') return 'http/json';
  if (asked !== 'http/protobuf')
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: only http/protobuf and http/json are supported, not ${asked}`);
  return 'http/protobuf';
}

let started: { shutdown(): Promise<void> } | undefined;

/**
 * Starts tracing for the process when the environment asks for it (`tracingRequested`): spans of
 * HTTP (server and client, fetch and undici included), PostgreSQL, Redis and RabbitMQ, W3C
 * `traceparent` propagation, and `trace_id` / `span_id` on every log line written inside a span,
 * exported over OTLP/HTTP in batches. The sampler, resource and exporter come from the standard
 * `OTEL_*` variables (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_EXPORTER_OTLP_*); `service` names the process unless OTEL_SERVICE_NAME does.
 *
 * Must run before the modules it instruments are loaded: an app's `main.ts` imports its
 * `tracing.ts` first. The SDK is loaded only when tracing is on, so a process without it pays
 * nothing. Returns whether tracing started.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (started || !tracingRequested(env)) return started !== undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on (see above) */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { AmqplibInstrumentation } =
    require('@opentelemetry/instrumentation-amqplib') as typeof import('@opentelemetry/instrumentation-amqplib');
  const { PinoInstrumentation } = require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');
  const { OTLPTraceExporter } =
    otlpProtocol(env) === 'http/json'
      ? (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http'))
      : (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto'));
  /* eslint-enable @typescript-eslint/no-require-imports */

  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': service }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  const instrumentations: Instrumentation[] = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
      // A call made outside any trace (a poll, a timer) starts none.
      requireParentforOutgoingSpans: true,
    }),
    new UndiciInstrumentation({ requireParentforSpans: true }),
    new PgInstrumentation({ requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
    new AmqplibInstrumentation(),
    new PinoInstrumentation({ disableLogSending: true }),
  ];
  registerInstrumentations({ tracerProvider: provider, instrumentations });
  started = provider;
  const stop = () => void provider.shutdown().catch(() => undefined);
  process.once('beforeExit', stop);
  return true;
}

/** Flushes and stops tracing (spans still buffered are exported); resolves at once when it is off. */
export async function stopTracing(): Promise<void> {
  const provider = started;
  started = undefined;
  await provider?.shutdown();
}
