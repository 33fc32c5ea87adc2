import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throw-away certificate authority and a server certificate it signed for 127.0.0.1, ::1 and localhost. */
export interface TestCa {
  /** PEM file of the CA: give it to the dispatcher as WEBHOOK_CA_FILE. */
  caFile: string;
  ca: string;
  cert: string;
  key: string;
  remove(): void;
}

/** Makes a test CA and a server certificate with `openssl` (EC P-256, valid 2 days). */
export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-ca-'));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=svc test CA');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(
    path('server.ext'),
    'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  return {
    caFile: path('ca.pem'),
    ca: readFileSync(path('ca.pem'), 'utf8'),
    cert: readFileSync(path('server.pem'), 'utf8'),
    key: readFileSync(path('server.key'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw bytes, as a receiver must verify them. */
  body: Buffer;
  /** `Date.now()` when the whole body had arrived. */
  receivedAt: number;
}

export interface ReceiverResponse {
  status?: number;
  /** Wait this long before answering (a slow or hanging receiver). */
  delayMs?: number;
  /** Sent as `Location` (with a 3xx status). */
  location?: string;
  body?: string;
}

/**
 * A real https server for webhook tests: records every request with its raw body and answers as
 * configured per path (default 200). Requests are recorded on arrival, before any delay.
 */
export class HttpsReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly byPath = new Map<string, ReceivedRequest[]>();
  private readonly responses = new Map<string, ReceiverResponse>();
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(ca: TestCa): Promise<HttpsReceiver> {
    const server = createServer({ key: ca.key, cert: ca.cert, keepAliveTimeout: 30_000 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const receiver = new HttpsReceiver(server, (server.address() as { port: number }).port);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const request = { method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks), receivedAt: Date.now() };
        receiver.requests.push(request);
        const forPath = receiver.byPath.get(path) ?? [];
        forPath.push(request);
        receiver.byPath.set(path, forPath);
        for (const wake of receiver.waiters) wake();
        const response = receiver.responses.get(path) ?? {};
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(response.status ?? 200, response.location ? { location: response.location } : {});
          res.end(response.body ?? '');
        };
        if (response.delayMs) setTimeout(answer, response.delayMs).unref();
        else answer();
      });
    });
    return receiver;
  }

  /** `https://127.0.0.1:<port><path>` (or another host name of the certificate: `localhost`). */
  url(path: string, host = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`;
  }

  respond(path: string, response: ReceiverResponse): void {
    this.responses.set(path, response);
  }

  /** The requests `path` has received so far (a copy). */
  received(path: string): ReceivedRequest[] {
    return [...(this.byPath.get(path) ?? [])];
  }

  private count(path: string): number {
    return this.byPath.get(path)?.length ?? 0;
  }

  /** Waits until `path` has received at least `count` requests; returns them. */
  async waitFor(path: string, count: number, timeoutMs = 15_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(path) < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${path} received ${this.count(path)} of ${count} requests within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 250));
        this.waiters.add(wake);
      });
    }
    return this.received(path);
  }

  /** Closes the server and every connection, including held (delayed) ones. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
