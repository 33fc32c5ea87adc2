import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { accessLog, CallLogger, createLogger, redactSecrets, TurnBufferedDestination } from './logger';

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
      { req: { headers: { authorization: 'Bearer svc_cust_secret1', 'x-svc-context': 'jwt-secret2' } }, api_key: 'svc_cust_secret3', webhook: { secret: 'whsec_secret4' }, token: 'secret5' },
      'hello',
    );
    const line = lines.join('');
    expect(JSON.parse(line)).toMatchObject({ level: 'info', app: 'test', msg: 'hello', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(line).not.toMatch(/secret\d/);
    expect(line.match(/\[redacted\]/g)).toHaveLength(5);
  });

  it('redacts secret-named fields at any depth and in any case, in errors and arrays, leaving the logged object untouched', () => {
    const err = Object.assign(new Error('upstream refused'), { config: { headers: { Authorization: 'Bearer svc_cust_secret1' } } });
    const logged = { err, hooks: [{ client_secret: 'secret2', url: 'https://example.com' }], refreshToken: 'secret3', password: 'secret4', id: 7 };
    const redacted = redactSecrets(logged);
    expect(redacted).toEqual({ err: expect.any(Error), hooks: [{ client_secret: '[redacted]', url: 'https://example.com' }], refreshToken: '[redacted]', password: '[redacted]', id: 7 });
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
      accessLog(createLogger('gateway', 'info', direct.stream))({ requestId: 'req-1', method: 'GET', path, route: '/api/v1/contacts/:ref', statusCode: 200, durationMs: 1.5 });
      createLogger('gateway', 'info', viaPino.stream)
        .child({ request_id: 'req-1' })
        .info({ method: 'GET', path, route: '/api/v1/contacts/:ref', status_code: 200, duration_ms: 1.5 }, 'request completed');
      const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"…"');
      expect(direct.lines).toHaveLength(1);
      expect(withoutTime(direct.lines[0] ?? '')).toBe(withoutTime(viaPino.lines[0] ?? ''));
      expect(JSON.parse(direct.lines[0] ?? '')).toMatchObject({ request_id: 'req-1', path, route: '/api/v1/contacts/:ref', status_code: 200, duration_ms: 1.5 });
    },
  );

  it('leaves out the route of an unmatched path, and writes no access line above info', () => {
    const { lines, stream } = sink();
    accessLog(createLogger('gateway', 'info', stream))({ requestId: 'r', method: 'GET', path: '/nothing', route: undefined, statusCode: 404, durationMs: 0.2 });
    expect(JSON.parse(lines[0] ?? '')).not.toHaveProperty('route');
    const quiet = sink();
    accessLog(createLogger('gateway', 'warn', quiet.stream))({ requestId: 'r', method: 'GET', path: '/', route: '/', statusCode: 200, durationMs: 1 });
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
      expect.objectContaining({ level: 'error', request_id: 'r-2', err: expect.objectContaining({ message: 'boom' }), msg: 'unhandled error' }),
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
});
