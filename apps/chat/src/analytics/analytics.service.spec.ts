import { rangeDays } from './analytics.service';

describe('analytics date range', () => {
  it('lists the UTC days from from to to, both included', () => {
    expect(rangeDays('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(rangeDays('2026-11-24', '2026-11-24')).toEqual(['2026-11-24']);
    expect(rangeDays('2025-01-01', '2026-01-01')).toHaveLength(366);
  });

  it('refuses impossible dates, a reversed range and more than 366 days as invalid_parameter, naming the parameter', () => {
    const refusal = (from: string, to: string) => {
      try {
        rangeDays(from, to);
      } catch (err) {
        return {
          code: (err as { code: string }).code,
          paths: ((err as { details: Array<{ path: string }> }).details ?? []).map((d) => d.path),
        };
      }
      throw new Error('expected a refusal');
    };
    expect(refusal('2026-02-30', '2026-03-01')).toEqual({ code: 'invalid_parameter', paths: ['from'] });
    expect(refusal('2026-03-01', '2026-13-01')).toEqual({ code: 'invalid_parameter', paths: ['to'] });
    expect(refusal('2026-03-02', '2026-03-01')).toEqual({ code: 'invalid_parameter', paths: ['to'] });
    expect(refusal('2024-01-01', '2025-01-01')).toEqual({ code: 'invalid_parameter', paths: ['to'] });
  });
});
