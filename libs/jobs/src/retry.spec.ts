import { growingDelayMs, nextAfterFailure, parseRetrySchedule } from './retry';

describe('retry schedule', () => {
  it('reads the default schedule of the contract: 1 min, 5 min, 30 min, 2 h, 6 h, 12 h', () => {
    expect(parseRetrySchedule('1m,5m,30m,2h,6h,12h')).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000]);
  });

  it('reads a short override with spaces and milliseconds', () => {
    expect(parseRetrySchedule('2s, 4s,500ms')).toEqual([2_000, 4_000, 500]);
  });

  it.each(['', '1m,', '5', '1d', '-1s', '1.5s'])('refuses %p', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow(/comma-separated list of waits/);
  });

  it('retries after each of the six waits, and fails after the seventh attempt', () => {
    const schedule = parseRetrySchedule('1m,5m,30m,2h,6h,12h');
    expect([1, 2, 3, 4, 5, 6].map((attempt) => nextAfterFailure(schedule, attempt))).toEqual(schedule.map((retryInMs) => ({ retryInMs })));
    expect(nextAfterFailure(schedule, 7)).toBe('failed');
  });
});

describe('growing delay', () => {
  it('doubles from the base with each attempt, up to the ceiling', () => {
    expect([1, 2, 3, 4, 10].map((attempt) => growingDelayMs(attempt, 2_000, 20_000))).toEqual([2_000, 4_000, 8_000, 16_000, 20_000]);
    expect(growingDelayMs(0, 2_000, 20_000)).toBe(2_000);
  });
});
