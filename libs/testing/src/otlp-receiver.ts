import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it, with the name of the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OpenTelemetry's SpanKind (1 internal, 2 server, 3 client, 4 producer, 5 consumer). */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

const valueOf = (value: OtlpValue): unknown => value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
const attributesOf = (list: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map((attribute) => [attribute.key, valueOf(attribute.value)]));

/**
 * A real OTLP/HTTP receiver (`POST /v1/traces`, JSON encoding: the apps export with
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/json), as an OpenTelemetry Collector's would be: keeps every span.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(
    private readonly server: Server,
    /** What the apps are given as OTEL_EXPORTER_OTLP_ENDPOINT. */
    readonly endpoint: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
          res.writeHead(415).end();
          return;
        }
        receiver.add(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    return receiver;
  }

  private add(exported: OtlpExport): void {
    for (const resource of exported.resourceSpans ?? []) {
      const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            startNs: BigInt(span.startTimeUnixNano),
            endNs: BigInt(span.endTimeUnixNano),
            attributes: attributesOf(span.attributes),
          });
    }
  }

  /** The spans of one trace received so far, in the order they started. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans
      .filter((span) => span.traceId === traceId)
      .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
