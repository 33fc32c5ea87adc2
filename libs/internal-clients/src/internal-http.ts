import { ErrorBody, GatewayContext, isErrorCode } from '@svc/contracts';
import type { Readable } from 'node:stream';
import { ApiError, GATEWAY_CONTEXT_HEADER, InternalAuth, unavailableError } from '@svc/platform';
import type { Logger } from 'pino';
import { Pool } from 'undici';

/** A keep-alive pool to one service: connect within 2 s, headers (and body, unless `bodyTimeoutMs`) within `timeoutMs`. */
export function servicePool(url: string, options: { connections: number | null; timeoutMs: number; bodyTimeoutMs?: number }): Pool {
  return new Pool(url, {
    connections: options.connections,
    keepAliveTimeout: 10_000,
    connect: { timeout: 2_000 },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.bodyTimeoutMs ?? options.timeoutMs,
  });
}

export interface InternalClientOptions {
  /** The service's base URL (`http://127.0.0.1:3001`). */
  url: string;
  auth: InternalAuth;
  /** How long a call may take (headers and body) before it counts as unavailable. */
  timeoutMs: number;
  logger: Logger;
  /** Shown in logs: which service did not answer. */
  upstream: string;
  connections?: number;
}

/** The answer of an internal call that the service answered: its status and JSON body (or undefined). */
export interface InternalResponse {
  status: number;
  body: unknown;
}

/** One service's internal routes, each call with a signed account context; no answer or a 5xx is `unavailable`. */
export class InternalHttpClient {
  private readonly pool: Pool;

  constructor(private readonly options: InternalClientOptions) {
    this.pool = servicePool(options.url, { connections: options.connections ?? 64, timeoutMs: options.timeoutMs });
  }

  /** Calls `method path` for `context`; a 4xx comes back as it is, a 5xx or no answer throws `unavailable`. */
  async call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    context: GatewayContext,
    json?: unknown,
  ): Promise<InternalResponse> {
    const headers: Record<string, string> = {
      [GATEWAY_CONTEXT_HEADER]: await this.options.auth.signReusable(this.options.upstream, context),
      'x-request-id': context.requestId,
      accept: 'application/json',
    };
    if (json !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await this.pool.request({ method, path, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    } catch (err) {
      throw this.unavailable(context, (err as { code?: string }).code ?? String(err));
    }
    if (response.statusCode >= 500) {
      await response.body.dump();
      throw this.unavailable(context, `status ${response.statusCode}`);
    }
    const text = await response.body.text().catch(() => '');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw this.unavailable(context, 'unexpected body');
    }
    return { status: response.statusCode, body };
  }

  /** The body of an answer with the expected status; a contract 4xx is rethrown as is, anything else is `unavailable`. */
  expect<T>(response: InternalResponse, status: number, context: GatewayContext): T {
    if (response.status === status) return response.body as T;
    const error = (response.body as Partial<ErrorBody> | undefined)?.error;
    if (response.status >= 400 && response.status < 500 && error && isErrorCode(error.code) && typeof error.message === 'string') {
      throw new ApiError(error.code, error.message, error.details);
    }
    throw this.unavailable(context, `status ${response.status}`);
  }

  /** Opens a Server-Sent Events GET without a body timeout (the service pings), closed by `signal`. */
  async openStream(path: string, context: GatewayContext, headers: Record<string, string>, signal?: AbortSignal): Promise<Readable> {
    let response;
    try {
      response = await this.pool.request({
        method: 'GET',
        path,
        headers: {
          ...headers,
          [GATEWAY_CONTEXT_HEADER]: await this.options.auth.signReusable(this.options.upstream, context),
          'x-request-id': context.requestId,
          accept: 'text/event-stream',
        },
        bodyTimeout: 0,
        signal,
      });
    } catch (err) {
      throw this.unavailable(context, (err as { code?: string }).code ?? String(err));
    }
    if (response.statusCode === 200) return response.body;
    const text = await response.body.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return this.expect(
      response.statusCode >= 500 ? { status: response.statusCode, body: undefined } : { status: response.statusCode, body },
      200,
      context,
    );
  }

  /** The error for an answer the caller cannot use (logged with the reason). */
  unavailable(context: GatewayContext, reason: string): ApiError {
    this.options.logger.warn({ request_id: context.requestId, upstream: this.options.upstream, reason }, 'internal call failed');
    return unavailableError();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
