// Log redaction per line: the hand-written scan (`redactSecrets`, libs/platform/src/logger.ts)
// against pino's own `redact` (fast-redact) with the paths our lines need, on the shapes the apps
// log. Needs `npm run build` (reads dist/). `npm run bench:logger`
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root } from './support.mjs';

const require = createRequire(import.meta.url);
/** @type {typeof import('pino').default} */
const pino = require('pino');
/** @type {typeof import('../libs/platform/src/logger.js')} */
const { redactSecrets, serializeError } = require(join(root, 'dist/libs/platform/src/logger.js'));
/** @typedef {import('pino').Logger} Logger */

/** The field names `redactSecrets` censors, as pino paths must spell them (exact case, no suffix match). */
const NAMES = [
  'authorization',
  'api_key',
  'apiKey',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'refreshToken',
  'password',
  '["x-svc-context"]',
  'email',
  'phone',
  'name',
  'text',
  'body',
  'payload',
  'data',
  'parameters',
  'params',
  'query',
  'consent',
  'consents',
  'pass',
  'identity',
];
const HEADERS = ['req.headers.authorization', 'req.headers["x-svc-context"]'];
/** @type {Record<string, import('pino').LoggerOptions>} */
const variants = {
  'none (floor)': {},
  'hand-written redactSecrets': { formatters: { log: (object) => redactSecrets(object) } },
  'pino redact, top-level paths': { redact: { paths: [...NAMES, ...HEADERS], censor: '[redacted]' } },
  'pino redact, top-level + *.field': {
    redact: { paths: [...NAMES, ...NAMES.map((n) => (n.startsWith('[') ? `*${n}` : `*.${n}`)), ...HEADERS], censor: '[redacted]' },
  },
};

const failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5672'), { code: 'ECONNREFUSED', port: 5672 });
/** What the apps log (grep `.warn({` in apps/ and libs/): flat fields, an error's message, an error, a child's bindings. */
/** @type {Record<string, (log: Logger) => void>} */
const shapes = {
  'message only': (log) => log.info('relay started'),
  '{ err: message }': (log) => log.warn({ err: failure.message }, 'publish failed'),
  '{ ids, counts }': (log) =>
    log.info({ request_id: 'req-1', conversation_id: 'c0ffee00-0000-4000-8000-000000000001', withdrawn: 2 }, 'erased'),
  '{ err: Error }': (log) => log.error({ err: failure, delivery_id: 'd-1' }, 'delivery failed'),
  'child { upstream, reason }': (log) =>
    log.child({ request_id: 'req-2' }).warn({ upstream: 'contacts-api', reason: 'timeout' }, 'unreachable'),
};

/** @param {import('pino').LoggerOptions} options */
const loggerOf = (options) =>
  pino(
    {
      name: 'bench',
      base: { app: 'bench' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError },
      ...options,
      formatters: { level: (label) => ({ level: label }), ...options.formatters },
    },
    { write: () => undefined },
  );

const LINES = 100_000;
const ROUNDS = 7;
/**
 * @param {Logger} logger
 * @param {(log: Logger) => void} shape
 */
const nsPerLine = (logger, shape) => {
  const started = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) shape(logger);
  return Number(process.hrtime.bigint() - started) / LINES;
};
/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const loggers = Object.fromEntries(Object.entries(variants).map(([name, options]) => [name, loggerOf(options)]));
/** @type {Record<string, Record<string, number>>} */
const results = {};
for (const [shapeName, shape] of Object.entries(shapes)) {
  /** @type {Record<string, number[]>} */
  const times = Object.fromEntries(Object.keys(loggers).map((name) => [name, []]));
  for (const logger of Object.values(loggers)) nsPerLine(logger, shape); // warm-up
  // Rounds interleave the variants, so a slower moment of the machine falls on all of them.
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, logger] of Object.entries(loggers)) times[name].push(nsPerLine(logger, shape));
  results[shapeName] = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, Math.round(median(values))]));
}
console.log(`ns per log line (median of ${ROUNDS} rounds of ${LINES.toLocaleString('en')} lines)`);
console.table(results);
