import { LoggerService } from '@nestjs/common';
import type { FastifyBaseLogger } from 'fastify';
import { createHmac, createSecretKey, KeyObject, randomBytes } from 'node:crypto';
import pino, { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino';

/**
 * Never logged, at any depth: a field whose name ends like a credential (`authorization`,
 * `api_key`, `apiKey`, `secret`, `client_secret`, `token`, `refresh_token`, `password`, the
 * gateway's `x-svc-context`), compared case-insensitively.
 */
export const SECRET_FIELD = /(?:authorization|api_?key|secret|token|password|x-svc-context)$/i;
/**
 * Never logged either: fields that hold a customer's data or a call's input, whatever the code
 * that logs them meant (`email`, `phone`, `name`, consent `text`, request and response `body`,
 * a query's `parameters`, an event's `data`, a pass).
 */
export const PERSONAL_FIELD = /^(?:email|phone|name|text|body|payload|data|parameters|params|query|consents?|pass|identity)$/i;
export const REDACTED = '[redacted]';
/** Deep enough for `{ err: { config: { headers: { authorization } } } }`; bounds cyclic objects. */
const MAX_DEPTH = 6;

/** A shallow copy that keeps what pino reads: an Error stays an Error with its message and stack. */
function shallowCopy(value: object): Record<string, unknown> {
  if (Array.isArray(value)) return value.slice() as unknown as Record<string, unknown>;
  return Object.create(Object.getPrototypeOf(value) as object | null, Object.getOwnPropertyDescriptors(value)) as Record<string, unknown>;
}

/**
 * `value` with every secret field censored, copying only the objects on the way to one: a line
 * without secrets (nearly every line) costs a scan of its field names, never a copy. Not pino's
 * `redact`: its paths cannot say "any depth" (docs/development.md, dependency notes; bench/logger.bench.mjs).
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || ArrayBuffer.isView(value)) return value;
  let copy: Record<string, unknown> | undefined;
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    const logged = field !== undefined && (SECRET_FIELD.test(key) || PERSONAL_FIELD.test(key)) ? REDACTED : redactSecrets(field, depth + 1);
    if (logged === field) continue;
    copy ??= shallowCopy(fields);
    copy[key] = logged;
  }
  return (copy ?? value) as T;
}

/** Fields of an error that describe the fault, never the data: codes, names of schema objects, places. */
const ERROR_FIELDS = [
  'code',
  'errno',
  'syscall',
  'address',
  'port',
  'statusCode',
  'severity',
  'routine',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
] as const;
/** A PostgreSQL error code (SQLSTATE): five digits or capitals. */
const SQLSTATE = /^[0-9A-Z]{5}$/;
/** Anything between double quotes in a database message: a value (`invalid input syntax for type uuid: "…"`) as often as a name. */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
const EMAIL = /[^\s@"'<>()[\],;:]+@[^\s@"'<>()[\],;:]+\.[^\s@"'<>()[\],;:]+/g;
const PHONE = /\+[1-9][0-9]{6,14}/g;

function isDatabaseError(err: Record<string, unknown>): boolean {
  const code = err['code'];
  return (
    (typeof code === 'string' && SQLSTATE.test(code) && ('severity' in err || 'routine' in err)) ||
    'driverError' in err ||
    'parameters' in err
  );
}

/** An error's message without the values it may quote: emails and phone numbers always, quoted text of database errors. */
function safeMessage(message: string, database: boolean): string {
  const cut = database ? message.replace(QUOTED, '"…"') : message;
  return cut.replace(EMAIL, '[email]').replace(PHONE, '[phone]');
}

/**
 * The `err` of a log line: its type, message, stack and the fields that say what failed (codes,
 * constraint, table), never what was sent. pino's standard serializer copied every field, so a
 * database error logged its query's parameters (a customer's email) and PostgreSQL's `detail`
 * (`Key (email)=(…)`); TypeORM's `QueryFailedError` carries the driver's error, whose fields are
 * taken instead. Messages lose the values they quote.
 */
export function serializeError(value: unknown, depth = 0): unknown {
  // A message logged as text (`{ err: err.message }`) may be a database's: its quotes are cut too.
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? safeMessage(value, true) : value;
  const err = value as Record<string, unknown>;
  const driver = err['driverError'];
  const source = driver !== null && typeof driver === 'object' ? (driver as Record<string, unknown>) : err;
  const database = isDatabaseError(err) || isDatabaseError(source);
  const message = typeof err['message'] === 'string' ? safeMessage(err['message'], database) : undefined;
  const type = (value as object).constructor?.name ?? 'Object';
  const out: Record<string, unknown> = { type };
  if (message !== undefined) out['message'] = message;
  for (const field of ERROR_FIELDS) {
    const fieldValue = source[field] ?? err[field];
    if (typeof fieldValue === 'string' || typeof fieldValue === 'number') out[field] = fieldValue;
  }
  const stack = err['stack'];
  if (typeof stack === 'string') {
    // The stack's first lines repeat the message; the frames after them hold no data.
    const frames = stack.indexOf('\n    at ');
    out['stack'] = `${type}: ${message ?? ''}${frames === -1 ? '' : stack.slice(frames)}`;
  }
  if (depth < 3 && err['cause'] !== undefined) out['cause'] = serializeError(err['cause'], depth + 1);
  if (depth < 3 && Array.isArray(err['errors']))
    out['errors'] = err['errors'].slice(0, 5).map((inner: unknown) => serializeError(inner, depth + 1));
  return out;
}

/**
 * ISO-8601 time (`,"time":"2026-11-21T10:04:05.123Z"`) from a string cached per second:
 * `Date#toISOString` on every line was a visible share of a gateway call.
 */
function isoTimeCachedPerSecond(): () => string {
  let second = -1;
  let prefix = '';
  return () => {
    const now = Date.now();
    const ms = now % 1000;
    if (now - ms !== second) {
      second = now - ms;
      prefix = `,"time":"${new Date(second).toISOString().slice(0, 20)}`;
    }
    return `${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
  };
}

/**
 * The lines logged during one turn of the event loop, written together when the turn ends: a busy
 * gateway makes one write for all the calls of a turn, and a line never waits longer than the
 * turn. (pino's asynchronous destination with `minLength` measured its whole pending buffer on
 * every line, and held lines until 4 KiB had gathered: a quiet service's lines showed up late, and
 * were lost on SIGTERM.) The write itself is sonic-boom's synchronous one, which handles EAGAIN
 * and a closed pipe; what is pending at exit is written then.
 */
export class TurnBufferedDestination implements pino.DestinationStream {
  private readonly out: ReturnType<typeof pino.destination>;
  private pending: string[] = [];

  constructor(fd: number) {
    this.out = pino.destination({ dest: fd, sync: true });
    process.once('exit', () => this.flush());
  }

  write(line: string): void {
    if (this.pending.push(line) === 1) setImmediate(() => this.flush());
  }

  /** Writes what is pending now (pino's `logger.flush()` calls it). */
  flush(done?: (err?: Error) => void): void {
    if (this.pending.length > 0) {
      const text = this.pending.join('');
      this.pending = [];
      this.out.write(text);
    }
    done?.();
  }
}

let stdout: TurnBufferedDestination | undefined;

/** What a call's access line says. */
export interface AccessRecord {
  requestId: string;
  method: string;
  path: string;
  /** The route pattern; none for a path no route matched. */
  route: string | undefined;
  statusCode: number;
  durationMs: number;
  /** The call's trace, when tracing is on and the call's trace is sampled. */
  trace?: { traceId: string; spanId: string };
}

/**
 * The path an access line shows: the words of the app's routes as they are (`/api/v1/contacts`),
 * every other segment (a ref, an id, a typo) as `~` and 16 characters of its HMAC-SHA256, keyed
 * with `log-path:` + LOG_PATH_SECRET (the same in every app, so one ref gives the same hash
 * in the gateway's and the service's lines). The query string is never shown.
 */
export class AccessPathRedactor {
  private readonly words = new Set<string>(['']);
  /** A KeyObject made once: given a string, createHmac would import the key on every call. */
  private readonly key: KeyObject;

  constructor(secret: string | undefined) {
    this.key = createSecretKey(secret ? Buffer.from(`log-path:${secret}`, 'utf8') : randomBytes(32));
  }

  /** Notes the fixed segments of a route (`/api/v1/contacts/:ref/identity` → api, v1, contacts, identity). */
  learnRoute(url: string): void {
    for (const segment of url.split('/')) {
      if (!segment.startsWith(':') && !segment.includes('*')) this.words.add(segment);
    }
  }

  hash(segment: string): string {
    return `~${createHmac('sha256', this.key).update(segment).digest('base64url').slice(0, 16)}`;
  }

  redact(url: string): string {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const segments = path.split('/');
    let changed = false;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      if (this.words.has(segment)) continue;
      segments[i] = this.hash(segment);
      changed = true;
    }
    return changed ? segments.join('/') : path;
  }
}

const accessWriters = new WeakMap<Logger, (record: AccessRecord) => void>();

/** What JSON.stringify would escape in a string: control characters, `"`, `\\`, lone surrogates. */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what must be escaped
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** `JSON.stringify(value)`, without its cost (a third of an access line) for the usual string with nothing to escape. */
function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * JSON logs on stdout (every logger of the process shares one `TurnBufferedDestination`). Secrets are
 * removed from every logged object by `redactSecrets`; child-logger bindings (request id,
 * component) are identifiers and are written as given.
 */
export function createLogger(name: string, level: string, destination?: pino.DestinationStream): Logger {
  const time = isoTimeCachedPerSecond();
  const out = destination ?? (stdout ??= new TurnBufferedDestination(1));
  const logger = pino(
    {
      name,
      level,
      base: { app: name },
      timestamp: time,
      formatters: { level: (label) => ({ level: label }), log: (object) => redactSecrets(object) },
      serializers: { err: serializeError },
    },
    out,
  );
  const names = `,"app":${JSON.stringify(name)},"name":${JSON.stringify(name)}`;
  accessWriters.set(logger, (r) => {
    if (!logger.isLevelEnabled('info')) return;
    const route = r.route === undefined ? '' : `,"route":${jsonString(r.route)}`;
    // The call's trace (its ids are hex: nothing to escape).
    const traced = r.trace === undefined ? '' : `,"trace_id":"${r.trace.traceId}","span_id":"${r.trace.spanId}"`;
    out.write(
      `{"level":"info"${time()}${names},"request_id":${jsonString(r.requestId)}${traced},"method":${jsonString(r.method)},"path":${jsonString(r.path)}${route},"status_code":${r.statusCode},"duration_ms":${r.durationMs},"msg":"request completed"}\n`,
    );
  });
  return logger;
}

/**
 * The writer of the access lines of a logger made by `createLogger`: one line per call, at info,
 * exactly as `logger.child({ request_id }).info({ method, path, route, status_code, duration_ms },
 * 'request completed')` would write it. Its fields are fixed and hold no secret, so it is
 * formatted directly: pino's generic serializer and the redaction scan cost a tenth of a gateway
 * call for this one line.
 */
export function accessLog(logger: Logger): (record: AccessRecord) => void {
  const writer = accessWriters.get(logger);
  if (!writer) throw new Error('accessLog needs a logger made by createLogger');
  return writer;
}

/**
 * A call's logger (Fastify's `request.log`): the child logger with the call's request id, made the
 * first time the call logs. Most calls log nothing but their access line (`accessLog`), so most
 * never make one: a child per call was a visible share of a gateway call.
 */
export class CallLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  get level(): LevelWithSilentOrString {
    return (this.made ?? this.parent).level;
  }
  set level(level: LevelWithSilentOrString) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    Reflect.apply(this.logger.fatal, this.logger, args);
  }
  error(...args: unknown[]): void {
    Reflect.apply(this.logger.error, this.logger, args);
  }
  warn(...args: unknown[]): void {
    Reflect.apply(this.logger.warn, this.logger, args);
  }
  info(...args: unknown[]): void {
    Reflect.apply(this.logger.info, this.logger, args);
  }
  debug(...args: unknown[]): void {
    Reflect.apply(this.logger.debug, this.logger, args);
  }
  trace(...args: unknown[]): void {
    Reflect.apply(this.logger.trace, this.logger, args);
  }
  silent(...args: unknown[]): void {
    Reflect.apply(this.logger.silent, this.logger, args);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Nest's own messages (bootstrap, lifecycle) go to the same JSON log. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, stack?: string, context?: string): void {
    this.logger.error({ context, stack }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
