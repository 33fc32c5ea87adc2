import { classifyFailure, InvalidMessageError } from './failures';
import { BrokerUnavailableError } from './publisher';

/** A PostgreSQL error as node-postgres raises it. */
const pgError = (code: string, message = 'failed') => Object.assign(new Error(message), { code, severity: 'ERROR' });
/** The same wrapped by TypeORM (QueryFailedError copies the driver error's fields and keeps it). */
const typeormError = (code: string) => Object.assign(new Error('failed'), { name: 'QueryFailedError', driverError: pgError(code) });
const networkError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('classifyFailure', () => {
  it.each([
    ['an invalid message', new InvalidMessageError('invalid domain message: kind is unknown')],
    ['a data error raised alone (22008 datetime field overflow)', pgError('22008')],
    ['an invalid timestamp offset (22009)', typeormError('22009')],
    ['an integrity error (23502 not null)', pgError('23502')],
  ])('%s is permanent: the message is parked', (_, err) => {
    expect(classifyFailure(err)).toMatchObject({ kind: 'permanent', recognised: true });
  });

  it.each([
    ['connection refused', networkError('ECONNREFUSED')],
    ['connection reset', networkError('ECONNRESET')],
    ['a timeout', networkError('ETIMEDOUT')],
    ['the pool gave no connection in time', new Error('timeout exceeded when trying to connect')],
    ['a connection that ended', new Error('Connection terminated unexpectedly')],
    ['a connection exception (08006)', pgError('08006')],
    ['a serialization failure (40001)', typeormError('40001')],
    ['a deadlock (40P01)', pgError('40P01')],
    ['an admin shutdown (57P01)', pgError('57P01')],
    ['a crash shutdown (57P02)', pgError('57P02')],
    ['a database starting up (57P03)', pgError('57P03')],
    ['too many connections (53300)', pgError('53300')],
    ['a broker that is not connected', new BrokerUnavailableError('RabbitMQ is not connected')],
    ['a closed channel', Object.assign(new Error('Channel closed'), { name: 'IllegalOperationError' })],
    [
      'a refused connection wrapped by TypeORM',
      Object.assign(new Error('failed'), { name: 'QueryFailedError', driverError: networkError('ECONNREFUSED') }),
    ],
    ['every address refused', new AggregateError([networkError('ECONNREFUSED'), networkError('ECONNREFUSED')])],
  ])('%s is transient: the message is retried later', (_, err) => {
    expect(classifyFailure(err)).toMatchObject({ kind: 'transient', recognised: true });
  });

  it.each([
    ['an unknown error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['an unknown SQLSTATE (42P01 undefined table)', pgError('42P01')],
    ['something thrown that is not an error', 'boom'],
    ['undefined', undefined],
  ])('%s is never lost: transient, but not recognised (logged as an error)', (_, err) => {
    expect(classifyFailure(err)).toMatchObject({ kind: 'transient', recognised: false });
  });

  it('never puts the database message (which can quote values) in the reason', () => {
    expect(classifyFailure(pgError('22P02', 'invalid input syntax for type uuid: "alice@example.com"')).reason).not.toContain('alice');
  });
});
