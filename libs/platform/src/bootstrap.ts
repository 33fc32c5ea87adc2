import 'reflect-metadata';
import { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions, LogController } from 'fastify';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bindings, Logger } from 'pino';
import { Config, ConfigError, ConfigSpec, loadConfig } from './config';
import { ApiError } from './errors';
import { ApiExceptionFilter, ApiFastifyAdapter, clientErrorHandler, drainRefusedBody, RouteRegistry, sendError } from './http-errors';
import { AccessPathRedactor, accessLog, CallLogger, createLogger, NestPinoLogger } from './logger';
import { ReadinessService } from './readiness.service';
import { serverSpan, ServerSpan, tracingStarted } from '@svc/tracing';
import { MetricsService } from './metrics.service';
import { checkPathParameters, checkQueryParameters, parseJsonBody } from './request-input';
import { PlatformConfig } from './tokens';
import { ApiValidationPipe } from './validation';

/** A request whose JSON body's exact bytes are kept (see `rawBodyOf`). */
interface RawBodyRequest {
  rawBody?: Buffer;
}

/** The exact bytes of a request's JSON body, as received (for signature checks); undefined without one. */
export function rawBodyOf(request: object): Buffer | undefined {
  return (request as RawBodyRequest).rawBody;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** A path parameter as sent: a `{ref}` of 255 characters, each up to 4 UTF-8 bytes as `%XX` (Fastify's default is 100). */
export const MAX_PARAM_LENGTH = 255 * 4 * 3;
/** Probes and scrapes: counted in metrics, not logged (they would drown the log). */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type AppConfig = PlatformConfig & { PORT: number; INTERNAL_PORT?: number; HOST: string; LOG_LEVEL: string };

/** Marks a request that came in on the internal listener. */
const VIA_INTERNAL = Symbol('via-internal-listener');
type ListenerRequest = IncomingMessage & { [VIA_INTERNAL]?: true };
/** Each app's internal listener, made with the app and listening once `runApp` starts it. */
const internalListeners = new WeakMap<FastifyInstance, Server>();

/** `/internal/…` and `/metrics`, by route and decoded path. See docs/adr/007-internal-listener.md */
export function isInternalOnly(routeUrl: string | undefined, rawUrl: string): boolean {
  if (routeUrl !== undefined && (routeUrl.startsWith('/internal/') || routeUrl === '/metrics')) return true;
  // Nearly every public call: no escape and neither word anywhere, so no decoding on the hot path.
  if (!rawUrl.includes('%') && !/internal|metrics/i.test(rawUrl)) return false;
  let path = rawUrl.split('?')[0] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape: the router refuses the path anyway
  }
  path = path.replace(/[\\/]+/g, '/').toLowerCase();
  return path === '/internal' || path.startsWith('/internal/') || path === '/metrics' || path.startsWith('/metrics/');
}

export interface AppDefinition<S extends ConfigSpec> {
  name: string;
  configSpec: S;
  module: (config: Config<S>, logger: Logger) => DynamicModule;
  /** Extra wiring on the Fastify instance before routes are registered (hooks, raw routes). */
  configure?: (app: NestFastifyApplication, fastify: FastifyInstance, config: Config<S>) => void | Promise<void>;
  /** Path prefix of the app's controllers, except health and metrics. */
  globalPrefix?: string;
  /** Server options from the app's settings: `trustProxy` for the app that faces clients. */
  serverOptions?: (config: Config<S>) => Pick<FastifyServerOptions, 'trustProxy'>;
}

/** A call's span while tracing is on (`traceCalls`). */
const SERVER_SPAN = Symbol('server-span');
type TracedRequest = FastifyRequest & { [SERVER_SPAN]?: ServerSpan };

/**
 * A span for each call but probes and scrapes, continuing the caller's `traceparent`: started when the
 * call comes in, made the active context again once its body is read (the handler and all it starts
 * run in it), ended with the response.
 */
function traceCalls(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && QUIET_ROUTES.has(route)) return done();
    const span = serverSpan(request.method, request.raw.headers);
    (request as TracedRequest)[SERVER_SPAN] = span;
    span.run(done);
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    const span = (request as TracedRequest)[SERVER_SPAN];
    if (span) span.run(done);
    else done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    (request as TracedRequest)[SERVER_SPAN]?.end(request.routeOptions.url, reply.statusCode);
    done();
  });
}

/** Echoes a caller's X-Request-Id when it is safe to log, otherwise makes one. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Builds a NestJS app on Fastify with everything every app does the same way. Does not listen. */
export async function createApp<S extends ConfigSpec>(
  definition: AppDefinition<S>,
  config: Config<S>,
  logger: Logger,
): Promise<NestFastifyApplication> {
  const adapter = new ApiFastifyAdapter({
    ...definition.serverOptions?.(config),
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    genReqId: requestId,
    // Each call's logger carries its request id, made only if the call logs (`CallLogger`).
    childLoggerFactory: (parent: FastifyBaseLogger, bindings: Bindings) => new CallLogger(parent, bindings),
    return503OnClosing: true,
    clientErrorHandler,
    forceCloseConnections: 'idle',
    // No app uses Nest middleware; without it Nest leaves @fastify/middie and its hook out.
    skipMiddie: true,
    // A path the router cannot read (bad percent-encoding, a parameter over the length limit) gets
    // the contract's error shape too, not Fastify's.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      sendError(
        request,
        reply,
        new ApiError('validation_failed', 'The URL path is not valid.', [{ path: 'path', message: error.message }]),
      ),
  });
  const app = await NestFactory.create<NestFastifyApplication>(definition.module(config, logger), adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
    // Bodies are read by our own JSON parser (below); the gateway keeps them as bytes.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  if (tracingStarted()) traceCalls(fastify);
  const routes = new RouteRegistry(fastify);
  // Access lines name a call by its route's words; refs and anything else in a path are hashed.
  const accessPaths = new AccessPathRedactor((config as { LOG_PATH_SECRET?: string }).LOG_PATH_SECRET);
  fastify.addHook('onRoute', (route) => accessPaths.learnRoute(route.url));
  // One app, two listeners: the public one (PORT) answers 404 for what only the apps may call.
  const internalListener = createServer((req, res) => {
    (req as ListenerRequest)[VIA_INTERNAL] = true;
    fastify.routing(req, res);
  });
  internalListeners.set(fastify, internalListener);
  fastify.addHook('onRequest', (request, reply, done) => {
    if ((request.raw as ListenerRequest)[VIA_INTERNAL] || !isInternalOnly(request.routeOptions.url, request.url)) return done();
    sendError(request, reply, new ApiError('not_found', 'Nothing is here.'));
  });
  // What no service can store or transform safely (a NUL, a body nested too deep, an inherited
  // field name) is refused for every route of every app, before any DTO transformation: bodies by
  // the one JSON reader (`parseJsonBody`; the gateway checks with it too), path parameters and
  // query strings here.
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    // Kept for a route that checks a signature over the exact bytes (the chat's WhatsApp webhook).
    (request as RawBodyRequest).rawBody = body as Buffer;
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  fastify.addHook('preValidation', (request, _reply, done) => {
    try {
      checkPathParameters(request.params);
      checkQueryParameters(request.query);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
  // JSON only: a body of any other type is 415 (Fastify would otherwise accept text/plain).
  fastify.removeContentTypeParser('text/plain');
  const metrics = app.get(MetricsService);
  const writeAccess = accessLog(logger);
  const readiness = app.get(ReadinessService);
  fastify.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    // A keep-alive connection would hold the closing server open until the client drops it.
    if (readiness.isDraining) reply.header('connection', 'close');
    // A body refused unread (413) is read to its end first, so that closing the connection resets nothing.
    if (reply.statusCode === 413 && !request.raw.complete) drainRefusedBody(request.raw).then(() => done(null, payload), done);
    else done(null, payload);
  });
  // One hook for metrics and the access log: the route options are built once per call.
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const ms = reply.elapsedTime;
    metrics.observe(request.method, route, reply.statusCode, ms);
    if (route === undefined || !QUIET_ROUTES.has(route)) {
      writeAccess({
        requestId: request.id,
        method: request.method,
        path: accessPaths.redact(request.url),
        route,
        statusCode: reply.statusCode,
        durationMs: Math.round(ms * 10) / 10,
        trace: (request as TracedRequest)[SERVER_SPAN]?.recorded,
      });
    }
    done();
  });
  // Closing the listener waits for the calls in flight, however long they take: a call that hangs
  // or a client that stopped reading its response would hold the process past its grace period.
  const { SHUTDOWN_TIMEOUT_MS } = config as unknown as PlatformConfig;
  let drainDeadline: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', (done) => {
    drainDeadline = setTimeout(() => {
      logger.warn({ shutdown_timeout_ms: SHUTDOWN_TIMEOUT_MS }, 'connections still busy after SHUTDOWN_TIMEOUT_MS; closing them');
      fastify.server.closeAllConnections();
      internalListener.closeAllConnections();
    }, SHUTDOWN_TIMEOUT_MS).unref();
    if (internalListener.listening) internalListener.close();
    internalListener.closeIdleConnections();
    done();
  });
  fastify.addHook('onClose', (_instance, done) => {
    clearTimeout(drainDeadline);
    done();
  });
  app.useGlobalFilters(new ApiExceptionFilter(routes));
  app.useGlobalPipes(new ApiValidationPipe());
  // Probes, metrics and internal routes (`/internal/…`, for the other apps) are never under the prefix.
  if (definition.globalPrefix)
    app.setGlobalPrefix(definition.globalPrefix, { exclude: ['healthz', 'readyz', 'metrics', 'internal/*path'] });
  await definition.configure?.(app, fastify, config);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}

/**
 * Process-level safety net, installed once per app: a promise of a background task (a consumer's
 * settle, a relay round, a timer) that rejects with nobody awaiting it is logged and the process
 * goes on, since its HTTP API and its other work are still sound. An uncaught exception leaves the
 * process in an unknown state: it is logged and the process ends (Node's advice), to be restarted.
 * Returns a function that removes the handlers.
 */
export function installProcessHandlers(
  logger: Pick<Logger, 'error' | 'fatal'>,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  const onRejection = (reason: unknown): void => {
    const err = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
    logger.error({ err }, 'unhandled promise rejection in a background task; the process goes on');
  };
  const onException = (error: Error): void => {
    logger.fatal({ err: `${error.name}: ${error.message}`, stack: error.stack }, 'uncaught exception; the process ends');
    exit(1);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}

/** Starts the app's internal listener (every route, `/internal/…` and `/metrics` included); returns its port. */
export async function listenInternal(app: NestFastifyApplication, port: number, host: string): Promise<number> {
  const server = internalListeners.get(app.getHttpAdapter().getInstance());
  if (!server) throw new Error('the app was not made by createApp');
  server.keepAliveTimeout = 72_000; // longer than the callers' keep-alive pools hold an idle socket
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** An app's whole main.ts: validate config (exit 1 naming the bad variable), build, listen. */
export async function runApp<S extends ConfigSpec>(definition: AppDefinition<S>): Promise<NestFastifyApplication | undefined> {
  let config: Config<S>;
  try {
    config = loadConfig(definition.configSpec);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${definition.name}: ${err.message}\n`);
    process.exitCode = 1;
    return undefined;
  }
  const appConfig = config as unknown as AppConfig;
  const logger = createLogger(definition.name, appConfig.LOG_LEVEL);
  installProcessHandlers(logger);
  try {
    const app = await createApp(definition, config, logger);
    await app.listen({ port: appConfig.PORT, host: appConfig.HOST });
    const internalPort =
      appConfig.INTERNAL_PORT === undefined ? undefined : await listenInternal(app, appConfig.INTERNAL_PORT, appConfig.HOST);
    logger.info(
      { port: appConfig.PORT, internal_port: internalPort },
      `${definition.name} listening on http://${appConfig.HOST}:${appConfig.PORT}` +
        (internalPort === undefined ? '' : ` (internal routes on port ${internalPort})`),
    );
    return app;
  } catch (err) {
    logger.fatal({ err }, `${definition.name} failed to start`);
    process.exit(1);
  }
}
