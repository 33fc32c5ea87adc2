import { isErrorCode } from './errors';

describe('isErrorCode', () => {
  it('knows the contract codes', () => {
    expect(isErrorCode('not_found')).toBe(true);
    expect(isErrorCode('unavailable')).toBe(true);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'nope', '', 7, null, undefined])(
    'refuses %p: a name from another service is data, never a key',
    (code) => {
      expect(isErrorCode(code)).toBe(false);
    },
  );
});
