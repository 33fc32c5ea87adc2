import type { Instrumentation } from '@opentelemetry/instrumentation';

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
 * outgoing HTTP (fetch and undici: every call between the apps and to the businesses), PostgreSQL,
 * Redis and RabbitMQ, W3C `traceparent` propagation, and `trace_id` / `span_id` on every log line
 * written inside a span, exported over OTLP/HTTP in batches. Incoming calls get their span from the
 * platform's hooks (`serverSpan`): OpenTelemetry's http instrumentation took 45% of the gateway's
 * throughput, the hooks a fraction of that (bench/README.md, "Traces"). The sampler, resource and exporter come from the standard
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
  // Made only when wanted: an instrumentation hooks its modules as it is constructed.
  const instrumentations: Array<[name: string, make: () => Instrumentation]> = [
    ['undici', () => new UndiciInstrumentation({ requireParentforSpans: true })],
    ['pg', () => new PgInstrumentation({ requireParentSpan: true })],
    ['ioredis', () => new IORedisInstrumentation({ requireParentSpan: true })],
    ['amqplib', () => new AmqplibInstrumentation()],
    ['pino', () => new PinoInstrumentation({ disableLogSending: true })],
  ];
  // OTEL_NODE_DISABLED_INSTRUMENTATIONS, as OpenTelemetry's auto-instrumentation reads it: `pg,ioredis` leaves those out.
  const disabled = new Set((env['OTEL_NODE_DISABLED_INSTRUMENTATIONS'] ?? '').split(',').map((name) => name.trim()));
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: instrumentations.filter(([name]) => !disabled.has(name)).map(([, make]) => make()),
  });
  started = provider;
  process.once('beforeExit', () => void stopTracing());
  return true;
}

/** Whether `startTracing` started tracing in this process. */
export function tracingStarted(): boolean {
  return started !== undefined;
}

/**
 * Flushes and stops tracing (spans still buffered are exported); resolves at once when it is off.
 * Never rejects: with the collector away the last spans are lost, and the app's other shutdown
 * work (run in the same Nest shutdown, which stops at the first hook that throws) still happens.
 */
export async function stopTracing(): Promise<void> {
  const provider = started;
  started = undefined;
  await provider?.shutdown().catch(() => undefined);
}
