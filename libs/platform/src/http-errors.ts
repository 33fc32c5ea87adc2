import { ArgumentsHost, Catch, ExceptionFilter, NotFoundException } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Router from 'find-my-way';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '@svc/contracts';
import { ApiError, ErrorResponse, INTERNAL_ERROR, isDependencyUnavailable, toErrorResponse } from './errors';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Every route the app serves, so that a known path with the wrong method is a 405 with `Allow`,
 * not a 404. Filled by Fastify's onRoute hook, whoever registers the route (Nest or plain Fastify).
 */
export class RouteRegistry {
  private readonly router = Router();

  constructor(fastify: FastifyInstance) {
    fastify.addHook('onRoute', (route) => {
      // A catch-all (@fastify/cors's preflight route) makes no path known.
      if (route.url === '*') return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if ((METHODS as readonly string[]).includes(method) && !this.router.hasRoute(method as never, route.url)) {
          this.router.on(method as never, route.url, () => undefined);
        }
      }
    });
  }

  allowedMethods(url: string): string[] {
    const path = url.split('?')[0] ?? url;
    return METHODS.filter((method) => this.router.find(method, path) !== null);
  }
}

function routeMissing(request: FastifyRequest, registry: RouteRegistry): ApiError {
  const allowed = registry.allowedMethods(request.url);
  if (allowed.length > 0) {
    return new ApiError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}.`, undefined, {
      allow: allowed.join(', '),
    });
  }
  return new ApiError('not_found', `There is no route ${request.method} ${request.url.split('?')[0]}.`);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  let response: ErrorResponse | undefined = toErrorResponse(err);
  if (response?.status === 503 && isDependencyUnavailable(err)) request.log.warn({ err }, 'dependency unavailable');
  if (!response) {
    request.log.error({ err }, 'unhandled error');
    response = INTERNAL_ERROR;
  }
  return reply.code(response.status).headers(response.headers).type('application/json; charset=utf-8').send(response.body);
}

/** Nest's side: every exception a controller, guard, pipe or Nest's own 404 handler raises. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly registry: RouteRegistry) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const unrouted = exception instanceof NotFoundException && !(exception instanceof ApiError) && request.routeOptions?.url === undefined;
    sendError(request, reply, unrouted ? routeMissing(request, this.registry) : exception);
  }
}

/**
 * Fastify's side: errors raised outside Nest's handlers (hooks, body parsing, plain Fastify routes).
 * Nest would install a handler that turns them into HttpExceptions by status alone, losing which
 * 400 it was (`invalid_json`); ours reads Fastify's error codes through the same mapping.
 */
export class ApiFastifyAdapter extends FastifyAdapter {
  override setErrorHandler(): FastifyInstance {
    return this.getInstance<FastifyInstance>().setErrorHandler((error, request, reply) => sendError(request, reply, error));
  }
}

/** What a request Node's HTTP parser refused was told, by status (408 has no code of its own in the contract). */
const CLIENT_ERRORS: Record<number, { code: ErrorCode; message: string }> = {
  400: { code: 'validation_failed', message: 'The request is not valid HTTP.' },
  408: { code: 'validation_failed', message: 'The request did not arrive in time.' },
  431: { code: 'header_too_large', message: 'The request head (request line and headers) is over 16 KB.' },
};

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it (a
 * head over 16 KB → 431, one that is not HTTP → 400, too slow → 408) answered in the contract's
 * error shape (431 `header_too_large`, else `validation_failed`) with an X-Request-Id, then the connection closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A reset or closed connection: nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify({ error: CLIENT_ERRORS[status] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** How much of a refused body is read and dropped before the answer: bytes, and how long without any or in all. */
export const REFUSED_BODY_DRAIN = { bytes: 64 * 1024 * 1024, idleMs: 5_000, totalMs: 60_000 };

/**
 * Reads and drops the rest of a request body that is refused before it was read (413: Fastify
 * answers on Content-Length alone, or stops reading at the limit, and closes the connection). A
 * connection closed with bytes still coming is reset by the kernel, and the client loses the answer
 * already on its way with it; read to the end first, the client gets the answer whole. Bounded: past
 * `bytes`, `idleMs` without data or `totalMs` the answer goes out anyway (such a client may see the reset).
 */
export function drainRefusedBody(request: IncomingMessage, { bytes, idleMs, totalMs } = REFUSED_BODY_DRAIN): Promise<void> {
  if (request.complete || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const finish = (): void => {
      clearTimeout(idle);
      clearTimeout(total);
      request.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > bytes) finish();
      else idle.refresh();
    };
    const idle = setTimeout(finish, idleMs);
    const total = setTimeout(finish, totalMs);
    request.on('data', onData).once('end', finish).once('close', finish).once('error', finish);
    request.resume();
  });
}
