import { sign, WEBHOOK_HEADERS } from '@svc/webhook-signing';
import { lookup, LookupAddress } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector, Dispatcher } from 'undici';
import { AddressPolicy, isPublicAddress, refusal, RefusedAddressError } from '../security/address-policy';

/** Read at most this much of a receiver's answer; a longer one is cut and its connection closed. */
export const RESPONSE_READ_LIMIT = 64 * 1024;
/** Kept of the answer in the attempt record. */
export const RESPONSE_RECORD_LIMIT = 4 * 1024;
const ERROR_RECORD_LIMIT = 500;

export interface DeliveryRequest {
  url: string;
  /** The endpoint's secret. */
  secret: string;
  /** During a rotation's overlap: the previous secret, which then signs X-SVC-Signature (the current one X-SVC-Signature-Next). */
  previousSecret?: string;
  eventId: string;
  kind: string;
  /** The exact bytes of every attempt. */
  body: Buffer;
  /** A test send: adds `X-SVC-Test: 1`. */
  test?: boolean;
}

export interface AttemptResult {
  delivered: boolean;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

export interface SenderOptions {
  policy: AddressPolicy;
  /** Total time of an attempt: connect, TLS, request, answer. */
  timeoutMs: number;
  /** PEM of extra trusted certificate authorities (added to Node's default ones). */
  extraCa?: string;
}

/** Resolves like `dns.lookup` but fails when any address of the name is not public (checked on every connection). */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '');
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(new RefusedAddressError(refusal(hostname, refused.address)), '');
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return first
      ? callback(null, first.address, first.family)
      : callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
  });
};

/**
 * The connector of the sender's agent. Unless private networks are allowed, the address actually
 * connected to is checked: a literal address here, a name's addresses in its lookup (Node does not
 * look up literal addresses). So a name that resolved to a public address at registration and now
 * resolves to 10.0.0.1 (DNS rebinding) is refused.
 */
function connector(policy: AddressPolicy, options: buildConnector.BuildOptions): buildConnector.connector {
  if (policy.allowPrivateNetworks) return buildConnector(options);
  const connect = buildConnector({ ...options, lookup: publicOnlyLookup });
  return (target, callback) => {
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) && !isPublicAddress(host)) return callback(new RefusedAddressError(refusal(host, host)), null);
    return connect(target, callback);
  };
}

function describeError(err: unknown): string {
  const { code, message } = err as { code?: string; message?: string };
  const text = [code, message].filter(Boolean).join(': ') || String(err);
  return text.slice(0, ERROR_RECORD_LIMIT);
}

/** Reads at most `limit` bytes of a body; stops (closing the connection) when there is more. */
async function readCapped(body: Dispatcher.ResponseData['body'], limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    chunks.push(buffer.subarray(0, limit - size));
    size += Math.min(buffer.length, limit - size);
    if (size >= limit) break; // leaving the loop destroys the stream
  }
  return Buffer.concat(chunks);
}

/** PostgreSQL text cannot hold NUL; invalid UTF-8 becomes U+FFFD. */
function recordable(bytes: Buffer): string | null {
  return bytes.length === 0 ? null : bytes.subarray(0, RESPONSE_RECORD_LIMIT).toString('utf8').replace(/\0/g, '');
}

/** The signature headers of an attempt signed at `timestamp` (see the rotation rule in @svc/webhook-signing). */
function signatureHeaders(request: DeliveryRequest, timestamp: number): Record<string, string> {
  if (request.previousSecret === undefined) return { [WEBHOOK_HEADERS.signature]: sign(request.secret, timestamp, request.body) };
  return {
    [WEBHOOK_HEADERS.signature]: sign(request.previousSecret, timestamp, request.body),
    [WEBHOOK_HEADERS.signatureNext]: sign(request.secret, timestamp, request.body),
  };
}

/** Signs and POSTs one attempt. Redirects are answers like any other (a failure), never followed. */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    // One TLS context for every connection: given `ca` alone, Node would parse the ~140 root certificates per connection.
    const secureContext = options.extraCa ? createSecureContext({ ca: [...rootCertificates, options.extraCa] }) : undefined;
    this.agent = new Agent({
      connect: connector(options.policy, { timeout: options.timeoutMs, ...(secureContext ? { secureContext } : {}) }),
      keepAliveTimeout: 4_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async send(request: DeliveryRequest): Promise<AttemptResult> {
    const startedAt = new Date().toISOString();
    const started = performance.now();
    const timestamp = Math.floor(Date.now() / 1000);
    const url = new URL(request.url);
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let statusCode: number | null = null;
    let body: Buffer = Buffer.alloc(0);
    let error: string | null = null;
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'SVC-Webhooks/1.0',
          [WEBHOOK_HEADERS.event]: request.kind,
          [WEBHOOK_HEADERS.eventId]: request.eventId,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          ...signatureHeaders(request, timestamp),
          ...(request.test ? { [WEBHOOK_HEADERS.test]: '1' } : {}),
        },
        body: request.body,
        signal,
      });
      statusCode = response.statusCode;
      if (statusCode >= 300 && statusCode < 400) {
        const location = response.headers['location'];
        error = `answered ${statusCode}${typeof location === 'string' ? ` (to ${location.slice(0, 200)})` : ''}; redirects are not followed`;
      } else if (statusCode >= 400 || statusCode < 200) {
        error = `answered ${statusCode}`;
      }
      // The answer counts once its status is in; its body is kept for the record, as far as time allows.
      body = await readCapped(response.body, RESPONSE_READ_LIMIT).catch(() => body);
    } catch (err) {
      error = signal.aborted ? `no answer within ${this.options.timeoutMs} ms` : describeError(err);
    }
    return {
      delivered: statusCode !== null && statusCode >= 200 && statusCode < 300,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      statusCode,
      error,
      responseBody: recordable(body),
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
