import { csrfMatches } from './session';

describe('the CSRF token check', () => {
  const token = 'Zm9vYmFyLWNzcmYtdG9rZW4tZm9yLWEtc2Vzc2lvbi0xMjM0';

  it('accepts exactly the session token', () => {
    expect(csrfMatches(token, token)).toBe(true);
  });

  it('refuses a wrong, shorter, longer, empty, missing or repeated header without throwing (timingSafeEqual of equal-length digests)', () => {
    expect(csrfMatches(`${token.slice(0, -1)}x`, token)).toBe(false);
    expect(csrfMatches(token.slice(0, 10), token)).toBe(false);
    expect(csrfMatches(`${token}x`, token)).toBe(false);
    expect(csrfMatches('', token)).toBe(false);
    expect(csrfMatches(undefined, token)).toBe(false);
    expect(csrfMatches([token, token], token)).toBe(false);
    expect(csrfMatches('é'.repeat(48), token)).toBe(false);
  });
});
