import { Writable } from 'node:stream';
import { createLogger } from './logger';

describe('logger', () => {
  it('writes JSON with the level name and redacts keys, secrets, tokens and Authorization', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger('test', 'info', sink);
    logger.info(
      { req: { headers: { authorization: 'Bearer svc_cust_secret1', 'x-svc-context': 'jwt-secret2' } }, api_key: 'svc_cust_secret3', webhook: { secret: 'whsec_secret4' }, token: 'secret5' },
      'hello',
    );
    const line = lines.join('');
    expect(JSON.parse(line)).toMatchObject({ level: 'info', app: 'test', msg: 'hello' });
    expect(line).not.toMatch(/secret\d/);
    expect(line.match(/\[redacted\]/g)).toHaveLength(5);
  });
});
