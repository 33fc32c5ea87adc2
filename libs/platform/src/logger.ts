import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/** Never logged: credentials in headers and any field that looks like a secret. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-svc-context"]',
  'headers.authorization',
  'headers["x-svc-context"]',
  'authorization',
  'api_key',
  'apiKey',
  'secret',
  'token',
  'password',
  '*.api_key',
  '*.apiKey',
  '*.secret',
  '*.token',
  '*.password',
  '*.authorization',
];

/**
 * JSON logs on stdout, written asynchronously in 4 KiB chunks (pino flushes them on exit): a
 * synchronous write per line would cost more than the rest of a gateway call.
 */
export function createLogger(name: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      base: { app: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ sync: false, minLength: 4096 }),
  );
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
