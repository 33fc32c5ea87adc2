import { NETWORK_ERROR_CODES } from '@svc/platform';

/** Thrown by a handler (or the payload check) for a message that can never succeed: it is parked. */
export class InvalidMessageError extends Error {
  override readonly name = 'InvalidMessageError';
}

/**
 * What a consumer does with a message whose handler failed:
 * - `permanent`: it can never succeed (invalid, or refused by the database for its data): park it.
 * - `transient`: a dependency is away or busy: retry it later, for as long as it takes.
 */
export type FailureKind = 'permanent' | 'transient';

export interface Failure {
  kind: FailureKind;
  /** Short, free of personal data: for logs and the parking queue's header. */
  reason: string;
  /** False for an error no rule recognises: it is retried (never lost) but logged as an error. */
  recognised: boolean;
}

/** Messages of node-postgres (pool and client) and amqplib when a connection is gone or cannot be had. */
const CONNECTION_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /connection terminated/i,
  /Client has encountered a connection error/i,
  /Connection (is )?closed/i,
  /Channel (ended|closed)/i,
  /RabbitMQ is not connected/i,
  /message not confirmed/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];
/** Names of errors a broker or channel raises. */
const BROKER_ERRORS = new Set(['BrokerUnavailableError', 'IllegalOperationError']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The SQLSTATE of a PostgreSQL error, whether raw (pg) or wrapped (TypeORM's QueryFailedError). */
function sqlState(err: Record<string, unknown>): string | undefined {
  for (const candidate of [err, err['driverError'], err['cause']]) {
    if (isObject(candidate) && typeof candidate['code'] === 'string' && /^[0-9A-Z]{5}$/.test(candidate['code'])) return candidate['code'];
  }
  return undefined;
}

/** A transient SQLSTATE: the connection or the server, never the message. */
function isTransientSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code.startsWith('53') || // insufficient resources
    code === '40001' || // serialization failure
    code === '40P01' || // deadlock detected
    code === '57P01' || // admin shutdown
    code === '57P02' || // crash shutdown
    code === '57P03' // cannot connect now (starting up)
  );
}

/**
 * Retried or parked: permanent is `InvalidMessageError` or SQLSTATE class 22/23 (for a message handled
 * alone); everything else, unknown errors included, is transient and never loses a message.
 */
export function classifyFailure(err: unknown): Failure {
  if (err instanceof InvalidMessageError) return { kind: 'permanent', reason: err.message, recognised: true };
  if (!isObject(err)) return { kind: 'transient', reason: 'unknown failure', recognised: false };
  const code = sqlState(err);
  if (code !== undefined) {
    if (code.startsWith('22') || code.startsWith('23'))
      return { kind: 'permanent', reason: `the database refused the message (SQLSTATE ${code})`, recognised: true };
    return { kind: 'transient', reason: `database error (SQLSTATE ${code})`, recognised: isTransientSqlState(code) };
  }
  const networkCode = [err, err['driverError'], err['cause']]
    .map((c) => (isObject(c) && typeof c['code'] === 'string' ? c['code'] : undefined))
    .find((c) => c !== undefined && NETWORK_ERROR_CODES.has(c));
  if (networkCode !== undefined) return { kind: 'transient', reason: `connection failed (${networkCode})`, recognised: true };
  const name = typeof err['name'] === 'string' ? err['name'] : '';
  const message = typeof err['message'] === 'string' ? err['message'] : '';
  if (BROKER_ERRORS.has(name) || CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) {
    return { kind: 'transient', reason: `dependency unavailable (${message.slice(0, 120)})`, recognised: true };
  }
  // An AggregateError (e.g. every address of a host refused) carries the network errors inside.
  if (
    Array.isArray(err['errors']) &&
    err['errors'].length > 0 &&
    err['errors'].every((inner) => classifyFailure(inner).recognised && classifyFailure(inner).kind === 'transient')
  ) {
    return { kind: 'transient', reason: 'connection failed', recognised: true };
  }
  return { kind: 'transient', reason: `unexpected error (${name || 'Error'})`, recognised: false };
}
