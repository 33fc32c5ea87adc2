import { formatTimestamp, parseTimestampInput } from './timestamps';

describe('timestamps', () => {
  it('formats PostgreSQL UTC text with six fraction digits and +00:00', () => {
    expect(formatTimestamp('2026-11-21 10:04:05.123456+00')).toBe('2026-11-21T10:04:05.123456+00:00');
    expect(formatTimestamp('2026-11-21 10:04:05.1+00')).toBe('2026-11-21T10:04:05.100000+00:00');
    expect(formatTimestamp('2026-11-21 10:04:05+00')).toBe('2026-11-21T10:04:05.000000+00:00');
  });

  it('refuses text from a non-UTC session rather than mislabel it', () => {
    expect(() => formatTimestamp('2026-11-21 11:04:05+01')).toThrow(/UTC/);
  });

  it.each([
    '2026-11-21T10:04:05Z',
    '2026-11-21T10:04:05.123456+02:00',
    '2026-11-21T10:04:05.1-0530',
    '2026-11-21T10:04:05+15:59',
    '2026-11-21T10:04:05-15:00',
  ])('accepts %s', (value) => {
    expect(parseTimestampInput(value)).toBe(value);
  });

  it.each([
    '2026-11-21T10:04:05',
    '2026-11-21',
    '2026-02-30T10:04:05Z',
    '2026-11-21T25:04:05Z',
    '2026-11-21T10:04:05.1234567Z',
    'yesterday',
    '2026-11-21T10:04:05+16:00',
    '2026-11-21T10:04:05+05:60',
    '2026-11-21T10:04:05-18:00',
    '9999-12-31T23:59:59-00:01',
    '9999-12-31T20:00:00-05:00',
  ])('refuses %s', (value) => {
    expect(parseTimestampInput(value)).toBeUndefined();
  });

  it('takes the last instant of year 9999 in UTC, however it is written', () => {
    for (const value of ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59+00:01', '9999-12-31T18:59:59-05:00'])
      expect(parseTimestampInput(value)).toBe(value);
  });
});
