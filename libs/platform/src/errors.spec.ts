import { BadRequestException, NotFoundException } from '@nestjs/common';
import { ApiError, toErrorResponse } from './errors';

describe('toErrorResponse', () => {
  it('keeps an ApiError with its code, details and headers', () => {
    const response = toErrorResponse(new ApiError('rate_limited', 'slow down', undefined, { 'retry-after': '3' }));
    expect(response).toEqual({
      status: 429,
      body: { error: { code: 'rate_limited', message: 'slow down' } },
      headers: { 'retry-after': '3' },
    });
  });

  it('lists details only when there are some', () => {
    const response = toErrorResponse(new ApiError('validation_failed', 'bad', [{ path: 'email', message: 'must be an email' }]));
    expect(response?.body.error.details).toEqual([{ path: 'email', message: 'must be an email' }]);
  });

  it.each([
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'unsupported_media_type'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'payload_too_large'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'invalid_json'],
  ])('maps Fastify %s to %i %s', (code, status, expected) => {
    const response = toErrorResponse(Object.assign(new Error('x'), { code, statusCode: status }));
    expect(response?.status).toBe(status);
    expect(response?.body.error.code).toBe(expected);
  });

  it.each(['constructor', 'toString', '__proto__'])('takes an error coded %s for an unknown code, not a key', (code) => {
    expect(toErrorResponse(Object.assign(new Error('x'), { code }))).toBeUndefined();
    expect(toErrorResponse(Object.assign(new Error('x'), { code, statusCode: 400 }))?.body.error.code).toBe('validation_failed');
  });

  it('maps a JSON syntax error to invalid_json', () => {
    const response = toErrorResponse(Object.assign(new SyntaxError('Unexpected token'), { statusCode: 400 }));
    expect(response?.body.error.code).toBe('invalid_json');
  });

  it("maps Nest's exceptions by status", () => {
    expect(toErrorResponse(new NotFoundException())?.body.error.code).toBe('not_found');
    expect(toErrorResponse(new BadRequestException())?.body.error.code).toBe('validation_failed');
  });

  it('gives nothing for a server fault, so the caller logs it and answers 500 without internals', () => {
    expect(toErrorResponse(new Error('relation "x" does not exist'))).toBeUndefined();
    expect(toErrorResponse(Object.assign(new Error('pool'), { statusCode: 500 }))).toBeUndefined();
  });
});

describe('a dependency that cannot be reached', () => {
  it.each([
    ['connection refused (pg pool)', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [
      'the server shutting down (SQLSTATE 57P01)',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
    ['a connection ended under a query', new Error('Connection terminated unexpectedly')],
    ['a pool with no connection in time', new Error('timeout exceeded when trying to connect')],
    ["TypeORM's wrapped driver error", Object.assign(new Error('query failed'), { driverError: { code: '08006' } })],
  ])('is 503 unavailable with Retry-After, not a 500: %s', (_, err) => {
    expect(toErrorResponse(err)).toEqual({
      status: 503,
      body: { error: { code: 'unavailable', message: expect.any(String) } },
      headers: { 'retry-after': '1' },
    });
  });

  it('leaves a data error a server fault (500)', () => {
    expect(toErrorResponse(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
  });
});
