import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { AccessPathRedactor, accessLog, CallLogger, createLogger, redactSecrets, serializeError, TurnBufferedDestination } from './logger';

function sink(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('logger', () => {
  it('writes JSON with the level name and an ISO time, and redacts keys, secrets, tokens and Authorization', () => {
    const { lines, stream } = sink();
    const logger = createLogger('test', 'info', stream);
    logger.info(
      {
        req: { headers: { authorization: 'Bearer svc_cust_secret1', 'x-svc-context': 'jwt-secret2' } },
        api_key: 'svc_cust_secret3',
        webhook: { secret: 'whsec_secret4' },
        token: 'secret5',
      },
      'hello',
    );
    const line = lines.join('');
    expect(JSON.parse(line)).toMatchObject({
      level: 'info',
      app: 'test',
      msg: 'hello',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(line).not.toMatch(/secret\d/);
    expect(line.match(/\[redacted\]/g)).toHaveLength(5);
  });

  it('redacts secret-named fields at any depth and in any case, in errors and arrays, leaving the logged object untouched', () => {
    const err = Object.assign(new Error('upstream refused'), { config: { headers: { Authorization: 'Bearer svc_cust_secret1' } } });
    const logged = {
      err,
      hooks: [{ client_secret: 'secret2', url: 'https://example.com' }],
      refreshToken: 'secret3',
      password: 'secret4',
      id: 7,
    };
    const redacted = redactSecrets(logged);
    expect(redacted).toEqual({
      err: expect.any(Error),
      hooks: [{ client_secret: '[redacted]', url: 'https://example.com' }],
      refreshToken: '[redacted]',
      password: '[redacted]',
      id: 7,
    });
    expect(redacted.err).toBeInstanceOf(Error);
    expect(redacted.err.message).toBe('upstream refused');
    expect(redacted.err.stack).toBe(err.stack);
    expect(redacted.err.config.headers.Authorization).toBe('[redacted]');
    expect(logged.err.config.headers.Authorization).toBe('Bearer svc_cust_secret1');
    expect(logged.hooks[0]?.client_secret).toBe('secret2');
  });

  it('returns a line without secrets as it is, without copying it', () => {
    const line = { method: 'GET', route: '/api/v1/whoami', status_code: 200, nested: { id: 'a' } };
    expect(redactSecrets(line)).toBe(line);
  });

  it.each(['/api/v1/contacts/c-1', '/api/v1/contacts/"a\\b', '/api/v1/contacts/tab\there', '/api/v1/contacts/caf\u00e9'])(
    'writes an access line exactly as pino writes the same fields on a child logger with the request id (path %j)',
    (path) => {
      const direct = sink();
      const viaPino = sink();
      accessLog(createLogger('gateway', 'info', direct.stream))({
        requestId: 'req-1',
        method: 'GET',
        path,
        route: '/api/v1/contacts/:ref',
        statusCode: 200,
        durationMs: 1.5,
      });
      createLogger('gateway', 'info', viaPino.stream)
        .child({ request_id: 'req-1' })
        .info({ method: 'GET', path, route: '/api/v1/contacts/:ref', status_code: 200, duration_ms: 1.5 }, 'request completed');
      const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"…"');
      expect(direct.lines).toHaveLength(1);
      expect(withoutTime(direct.lines[0] ?? '')).toBe(withoutTime(viaPino.lines[0] ?? ''));
      expect(JSON.parse(direct.lines[0] ?? '')).toMatchObject({
        request_id: 'req-1',
        path,
        route: '/api/v1/contacts/:ref',
        status_code: 200,
        duration_ms: 1.5,
      });
    },
  );

  it('leaves out the route of an unmatched path, and writes no access line above info', () => {
    const { lines, stream } = sink();
    accessLog(createLogger('gateway', 'info', stream))({
      requestId: 'r',
      method: 'GET',
      path: '/nothing',
      route: undefined,
      statusCode: 404,
      durationMs: 0.2,
    });
    expect(JSON.parse(lines[0] ?? '')).not.toHaveProperty('route');
    const quiet = sink();
    accessLog(createLogger('gateway', 'warn', quiet.stream))({
      requestId: 'r',
      method: 'GET',
      path: '/',
      route: '/',
      statusCode: 200,
      durationMs: 1,
    });
    expect(quiet.lines).toHaveLength(0);
  });

  it("writes a call's lines with its request id, making the child logger only when the call logs", () => {
    const { lines, stream } = sink();
    const parent = createLogger('gateway', 'info', stream);
    const child = jest.spyOn(parent, 'child');
    const quiet = new CallLogger(parent, { request_id: 'r-1' });
    expect(quiet.level).toBe('info');
    expect(child).not.toHaveBeenCalled();
    const logging = new CallLogger(parent, { request_id: 'r-2' });
    logging.warn({ reason: 'bad_signature' }, 'refused');
    logging.error({ err: new Error('boom') }, 'unhandled error');
    logging.debug('not at info');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ level: 'warn', request_id: 'r-2', reason: 'bad_signature', msg: 'refused' }),
      expect.objectContaining({
        level: 'error',
        request_id: 'r-2',
        err: expect.objectContaining({ message: 'boom' }),
        msg: 'unhandled error',
      }),
    ]);
  });

  it('writes the lines of one event-loop turn together, in order, when the turn ends', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'log-')), 'out.log');
    const fd = openSync(file, 'w');
    try {
      const destination = new TurnBufferedDestination(fd);
      destination.write('one\n');
      destination.write('two\n');
      expect(readFileSync(file, 'utf8')).toBe('');
      await nextTurn();
      expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n');
      destination.write('three\n');
      destination.flush();
      expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n');
    } finally {
      closeSync(fd);
    }
  });

  describe('personal data', () => {
    const EMAIL = 'ada.lovelace@example.com';
    const PHONE = '+447700900123';

    /** What pg raises for a unique violation, wrapped by TypeORM with the query and its parameters, as a repository throws it. */
    function uniqueViolation(): QueryFailedError {
      const driverError = Object.assign(
        new DatabaseError(`duplicate key value violates unique constraint "customers_email_key"`, 200, 'error'),
        {
          severity: 'ERROR',
          code: '23505',
          detail: `Key (account_id, lower(email))=(7, ${EMAIL}) already exists.`,
          schema: 'contacts',
          table: 'customers',
          constraint: 'customers_email_key',
          routine: '_bt_check_unique',
          where: `SQL statement "INSERT ..." with ${PHONE}`,
        },
      );
      return new QueryFailedError(
        'INSERT INTO contacts.customers (account_id, name, email, phone) VALUES ($1, $2, $3, $4)',
        ['7', 'Ada Lovelace', EMAIL, PHONE],
        driverError,
      );
    }

    it("logs a database error with its code, constraint and stack, never the query's parameters, PostgreSQL's detail or quoted values", () => {
      const { lines, stream } = sink();
      const err = uniqueViolation();
      createLogger('contacts-api', 'info', stream).error({ err }, 'unhandled error');
      const line = lines.join('');
      expect(line).not.toContain(EMAIL);
      expect(line).not.toContain(PHONE);
      expect(line).not.toContain('Ada Lovelace');
      expect(line).not.toContain('already exists');
      expect(JSON.parse(line).err).toEqual({
        type: 'QueryFailedError',
        message: 'duplicate key value violates unique constraint "…"',
        code: '23505',
        severity: 'ERROR',
        routine: '_bt_check_unique',
        schema: 'contacts',
        table: 'customers',
        constraint: 'customers_email_key',
        stack: expect.stringMatching(/^QueryFailedError: duplicate key value violates unique constraint "…"\n {4}at /),
      });
    });

    it('cuts the values PostgreSQL quotes in a message (invalid input syntax), in the error and in its cause', () => {
      const driverError = Object.assign(
        new DatabaseError(`invalid input syntax for type timestamp with time zone: "2026-11-21T10:04:05+16:00 ${EMAIL}"`, 100, 'error'),
        { code: '22007', severity: 'ERROR', routine: 'DateTimeParseError' },
      );
      const wrapped = new Error('could not save the customer', { cause: new QueryFailedError('UPDATE …', [EMAIL], driverError) });
      const serialized = JSON.stringify(serializeError(wrapped));
      expect(serialized).not.toContain(EMAIL);
      expect(serialized).not.toContain('+16:00');
      expect(serialized).toContain('"code":"22007"');
      expect(serialized).toContain('invalid input syntax for type timestamp with time zone: \\"…\\"');
    });

    it('keeps what an ordinary error needs (type, message, code, stack) and hides emails and phone numbers in its message', () => {
      const err = Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:5432 for ${EMAIL} ${PHONE}`), {
        code: 'ECONNREFUSED',
        address: '127.0.0.1',
        port: 5432,
        config: { body: 'x' },
      });
      expect(serializeError(err)).toEqual({
        type: 'Error',
        message: 'connect ECONNREFUSED 127.0.0.1:5432 for [email] [phone]',
        code: 'ECONNREFUSED',
        address: '127.0.0.1',
        port: 5432,
        stack: expect.stringMatching(/^Error: connect ECONNREFUSED 127.0.0.1:5432 for \[email\] \[phone\]\n {4}at /),
      });
      expect(serializeError(`could not parse "${EMAIL}"`)).toBe('could not parse "…"');
    });

    it('writes fields named like personal data or input [redacted], at any depth', () => {
      const { lines, stream } = sink();
      createLogger('test', 'info', stream).warn(
        {
          contact: { email: EMAIL, phone: PHONE, name: 'Ada Lovelace' },
          consents: [{ text: 'Yes, email me' }],
          body: '{"x":1}',
          parameters: ['a'],
          data: { x: 1 },
          ref_count: 2,
        },
        'something',
      );
      const line = JSON.parse(lines.join('')) as Record<string, unknown>;
      expect(line).toMatchObject({
        contact: { email: '[redacted]', phone: '[redacted]', name: '[redacted]' },
        consents: '[redacted]',
        body: '[redacted]',
        parameters: '[redacted]',
        data: '[redacted]',
        ref_count: 2,
      });
    });

    describe('access-log paths', () => {
      const redactor = new AccessPathRedactor('a-secret-of-at-least-32-characters!!');
      for (const route of ['/api/v1/contacts/:ref', '/api/v1/contacts/:ref/identity', '/api/v1/knowledge/bulk', '/healthz'])
        redactor.learnRoute(route);

      it("keeps the routes' words and replaces every other segment by a keyed hash, without the query string", () => {
        const path = redactor.redact(`/api/v1/contacts/${encodeURIComponent(EMAIL)}/identity?email=${encodeURIComponent(EMAIL)}`);
        expect(path).toMatch(/^\/api\/v1\/contacts\/~[A-Za-z0-9_-]{16}\/identity$/);
        expect(path).not.toContain('ada');
        expect(redactor.redact('/api/v1/knowledge/bulk')).toBe('/api/v1/knowledge/bulk');
        expect(redactor.redact('/api/v1/nothing/here')).toMatch(/^\/api\/v1\/~[\w-]{16}\/~[\w-]{16}$/);
      });

      it('gives one ref the same hash in every app that shares the secret, and another hash under another secret', () => {
        const gateway = redactor.redact('/api/v1/contacts/cust-1042');
        const service = new AccessPathRedactor('a-secret-of-at-least-32-characters!!');
        service.learnRoute('/contacts/:ref');
        expect(service.redact('/contacts/cust-1042').split('/').pop()).toBe(gateway.split('/').pop());
        const other = new AccessPathRedactor('another-secret-of-at-least-32-chars!');
        expect(other.redact('/contacts/cust-1042').split('/').pop()).not.toBe(gateway.split('/').pop());
      });
    });
  });
});
